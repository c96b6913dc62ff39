// The element types qkov reads from model files, and their exact conversion to double.
//
// F64, F32, F16 and BF16 widen exactly (every value of a narrower float is a double); the 16-bit
// formats go through qkov's narrow_float, so bf16 is the upper half of a float32. Other dtypes of
// the wild (integers, BOOL, 8-bit floats) are refused by name: an attention weight stored as an
// integer is quantised in a way this reader does not know how to undo.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

#include "qkov/scalar/narrow_float.hpp"

namespace qkov::io {

static_assert(std::endian::native == std::endian::little, "qkov: the model readers assume a little-endian host");

enum class tensor_dtype { f64, f32, f16, bf16, q8_0 };

inline constexpr std::size_t q8_0_block = 32;        ///< values per Q8_0 block
inline constexpr std::size_t q8_0_block_bytes = 34;  ///< fp16 scale + 32 int8

constexpr std::size_t item_size(tensor_dtype t)
{
    switch (t) {
    case tensor_dtype::f64: return 8;
    case tensor_dtype::f32: return 4;
    case tensor_dtype::f16:
    case tensor_dtype::bf16: return 2;
    case tensor_dtype::q8_0: return 0;  // not a whole number of bytes per value: see byte_count
    }
    return 0;
}

/// Bytes of n values of type t; 0 when n is not a whole number of Q8_0 blocks.
constexpr std::size_t byte_count(tensor_dtype t, std::size_t n)
{
    if (t == tensor_dtype::q8_0) return n % q8_0_block == 0 ? n / q8_0_block * q8_0_block_bytes : 0;
    return n * item_size(t);
}

constexpr std::string_view dtype_name(tensor_dtype t)
{
    switch (t) {
    case tensor_dtype::f64: return "F64";
    case tensor_dtype::f32: return "F32";
    case tensor_dtype::f16: return "F16";
    case tensor_dtype::bf16: return "BF16";
    case tensor_dtype::q8_0: return "Q8_0";
    }
    return "?";
}

/// The safetensors spelling ("F32", "BF16", ...); nullopt for a dtype qkov does not read.
inline std::optional<tensor_dtype> parse_safetensors_dtype(std::string_view s)
{
    if (s == "F64") return tensor_dtype::f64;
    if (s == "F32") return tensor_dtype::f32;
    if (s == "F16") return tensor_dtype::f16;
    if (s == "BF16") return tensor_dtype::bf16;
    return std::nullopt;
}

/// Element i of a little-endian array of one dtype, exactly as a double: one decoder per dtype, so
/// a loop over a whole tensor picks its decoder once (with_decoder) and runs without a branch per
/// element.
struct f64_decoder {
    static double at(const std::byte* p, std::size_t i)
    {
        double v;
        std::memcpy(&v, p + 8 * i, 8);
        return v;
    }
};
struct f32_decoder {
    static double at(const std::byte* p, std::size_t i)
    {
        float v;
        std::memcpy(&v, p + 4 * i, 4);
        return v;
    }
};
template <class Narrow>
struct narrow_decoder {
    static double at(const std::byte* p, std::size_t i)
    {
        std::uint16_t bits;
        std::memcpy(&bits, p + 2 * i, 2);
        return Narrow::from_bits(bits).to_float();
    }
};
struct q8_0_decoder {
    static double at(const std::byte* p, std::size_t i)
    {
        const std::byte* block = p + (i / q8_0_block) * q8_0_block_bytes;
        return narrow_decoder<fp16>::at(block, 0) * static_cast<std::int8_t>(block[2 + i % q8_0_block]);
    }
};

/// Calls f with the decoder of t (a default-constructed object of one of the types above).
template <class F>
decltype(auto) with_decoder(tensor_dtype t, F&& f)
{
    switch (t) {
    case tensor_dtype::f64: return f(f64_decoder{});
    case tensor_dtype::f32: return f(f32_decoder{});
    case tensor_dtype::f16: return f(narrow_decoder<fp16>{});
    case tensor_dtype::bf16: return f(narrow_decoder<bf16>{});
    case tensor_dtype::q8_0: return f(q8_0_decoder{});
    }
    return f(f64_decoder{});  // unreachable: every enumerator is handled above
}

/// Element i of a little-endian array of type t starting at p, exactly as a double.
inline double element_as_double(const std::byte* p, tensor_dtype t, std::size_t i)
{
    return with_decoder(t, [&](auto decoder) { return decoder.at(p, i); });
}

} // namespace qkov::io
