// value_array<T, N>: std::array<T, N> whose copies and moves work in constant evaluation for any T.
//
// g++ 12 miscompiles, in constant evaluation, the implicit copy of an array whose elements own
// heap storage (constexpr std::vector inside trig_poly): "deallocation of already deallocated
// storage" (measured: std::array<S, 1> with S holding a std::vector fails, a struct of two S
// does not). Copying element by element avoids it. For trivially copyable T (integers,
// rationals, double) the special members stay defaulted and trivial. The storage is a plain
// array because std::array's operator[] costs a function call in g++'s constant evaluator.
#pragma once

#include <array>
#include <cstddef>
#include <type_traits>
#include <utility>

namespace qkov {

template <class T, std::size_t N>
struct value_array {
    T items[N]{};

    constexpr value_array() = default;

    constexpr value_array(const value_array&) requires std::is_trivially_copyable_v<T> = default;
    constexpr value_array(value_array&&) noexcept requires std::is_trivially_copyable_v<T> = default;
    constexpr value_array& operator=(const value_array&) requires std::is_trivially_copyable_v<T> = default;
    constexpr value_array& operator=(value_array&&) noexcept requires std::is_trivially_copyable_v<T> = default;

    constexpr value_array(const value_array& other) requires(!std::is_trivially_copyable_v<T>) { *this = other; }
    constexpr value_array(value_array&& other) noexcept requires(!std::is_trivially_copyable_v<T>)
    {
        *this = std::move(other);
    }
    constexpr value_array& operator=(const value_array& other) requires(!std::is_trivially_copyable_v<T>)
    {
        for (std::size_t k = 0; k < N; ++k) items[k] = other.items[k];
        return *this;
    }
    constexpr value_array& operator=(value_array&& other) noexcept requires(!std::is_trivially_copyable_v<T>)
    {
        for (std::size_t k = 0; k < N; ++k) items[k] = std::move(other.items[k]);
        return *this;
    }

    constexpr T& operator[](std::size_t k) { return items[k]; }
    constexpr const T& operator[](std::size_t k) const { return items[k]; }
    static constexpr std::size_t size() { return N; }
    constexpr T* begin() { return items; }
    constexpr T* end() { return items + N; }
    constexpr const T* begin() const { return items; }
    constexpr const T* end() const { return items + N; }
};

} // namespace qkov
