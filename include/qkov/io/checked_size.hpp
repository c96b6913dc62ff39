// Sizes computed from numbers a file states (a header's dimensions, a tensor's shape, a count):
// every product and sum is checked, so a hostile file cannot wrap a size around 2^64 and have the
// wrapped value pass a comparison with the real file size. One definition for every reader.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>

namespace qkov::io {

/// The product of `factors`, or nullopt when it does not fit in 64 bits.
[[nodiscard]] inline std::optional<std::uint64_t> checked_product(std::initializer_list<std::uint64_t> factors)
{
    std::uint64_t p = 1;
    for (const std::uint64_t f : factors)
        if (__builtin_mul_overflow(p, f, &p)) return std::nullopt;
    return p;
}

/// A running sum of products that remembers whether any step overflowed 64 bits.
class checked_size {
public:
    /// Adds the product of `factors`.
    checked_size& add(std::initializer_list<std::uint64_t> factors)
    {
        const auto p = checked_product(factors);
        if (!p || __builtin_add_overflow(value_, *p, &value_)) overflowed_ = true;
        return *this;
    }
    /// The sum, or nullopt when it overflowed.
    [[nodiscard]] std::optional<std::uint64_t> value() const { return overflowed_ ? std::nullopt : std::optional<std::uint64_t>(value_); }

private:
    std::uint64_t value_ = 0;
    bool overflowed_ = false;
};

} // namespace qkov::io
