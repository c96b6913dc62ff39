// The term list of a trig_poly (trig_polynomial.hpp): fixed capacity, shared between copies,
// written only while it is being built.
#pragma once

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace qkov {

namespace detail {
/// The term list of a trig_poly: a fixed-capacity array shared between copies.
///
/// Two measured costs of g++'s constant evaluator shape it. std::vector's push_back, copy and
/// std::sort are chains of library calls charged one by one (a 2 x 2-term product took 4.5 ms
/// with std::vector + std::sort). And every heap allocation is expensive (~0.5 ms to copy a
/// 2-term polynomial), while matrices of polynomials are copied constantly (transpose, blocks).
/// So copies share the storage and count references; polynomials are immutable once built, and
/// the only writer, the code that builds a new list, works on a buffer nobody else holds.
template <class T>
class term_buffer {
    // Uninitialized room: a union member whose lifetime push() starts with std::construct_at.
    // (Plain assignment starts it only for trivially assignable types; g++ accepted it for the
    // terms here, clang rightly refused "member call on member 'value' of union with no active member".)
    struct slot {
        union {
            T value;
        };
        constexpr slot() {}
    };
    // Lists of up to four terms (cos, sin, most rotation entries) live inside the shared
    // header: one heap allocation instead of two.
    static constexpr std::size_t inline_capacity = 4;
    struct storage {
        slot inline_slots[inline_capacity];
        slot* data;
        std::size_t size;
        std::size_t capacity;
        std::size_t references;
        constexpr explicit storage(std::size_t n)
            : data(n <= inline_capacity ? inline_slots : new slot[n]), size(0), capacity(n), references(1)
        {
        }
        constexpr ~storage()
        {
            if (data != inline_slots) delete[] data;
        }
    };

public:
    constexpr term_buffer() = default;
    /// Uninitialized room for `capacity` terms, filled by copy-construction in push().
    constexpr explicit term_buffer(std::size_t capacity)
    {
        if (capacity == 0) return;
        shared_ = new storage(capacity);
    }
    constexpr term_buffer(const term_buffer& other) : shared_(other.shared_)
    {
        if (shared_) ++shared_->references;
    }
    constexpr term_buffer(term_buffer&& other) noexcept : shared_(other.shared_) { other.shared_ = nullptr; }
    constexpr term_buffer& operator=(term_buffer other) noexcept
    {
        std::swap(shared_, other.shared_);
        return *this;
    }
    constexpr ~term_buffer()
    {
        static_assert(std::is_trivially_destructible_v<T>, "term_buffer does not run element destructors");
        if (shared_ && --shared_->references == 0) delete shared_;
    }

    /// Appends within the capacity given at construction (callers size it exactly).
    constexpr void push(const T& x)
    {
        writable();
        if (shared_->size == shared_->capacity) throw std::logic_error("qkov: term_buffer capacity exceeded");
        std::construct_at(&shared_->data[shared_->size].value, x);
        ++shared_->size;
    }
    [[nodiscard]] constexpr std::size_t size() const { return shared_ ? shared_->size : 0; }
    [[nodiscard]] constexpr bool empty() const { return size() == 0; }
    constexpr const T& operator[](std::size_t k) const { return shared_->data[k].value; }

private:
    constexpr void writable() const
    {
        if (!shared_ || shared_->references != 1) throw std::logic_error("qkov: writing a shared or empty term_buffer");
    }

    storage* shared_ = nullptr;
};
} // namespace detail

} // namespace qkov
