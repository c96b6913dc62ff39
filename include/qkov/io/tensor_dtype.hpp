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

enum class tensor_dtype { f64, f32, f16, bf16 };

constexpr std::size_t item_size(tensor_dtype t)
{
    switch (t) {
    case tensor_dtype::f64: return 8;
    case tensor_dtype::f32: return 4;
    case tensor_dtype::f16:
    case tensor_dtype::bf16: return 2;
    }
    return 0;
}

constexpr std::string_view dtype_name(tensor_dtype t)
{
    switch (t) {
    case tensor_dtype::f64: return "F64";
    case tensor_dtype::f32: return "F32";
    case tensor_dtype::f16: return "F16";
    case tensor_dtype::bf16: return "BF16";
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

/// Element i of a little-endian array of type t starting at p, exactly as a double.
inline double element_as_double(const std::byte* p, tensor_dtype t, std::size_t i)
{
    switch (t) {
    case tensor_dtype::f64: {
        double v;
        std::memcpy(&v, p + 8 * i, 8);
        return v;
    }
    case tensor_dtype::f32: {
        float v;
        std::memcpy(&v, p + 4 * i, 4);
        return v;
    }
    case tensor_dtype::f16:
    case tensor_dtype::bf16: {
        std::uint16_t bits;
        std::memcpy(&bits, p + 2 * i, 2);
        return t == tensor_dtype::f16 ? static_cast<double>(fp16::from_bits(bits).to_float())
                                      : static_cast<double>(bf16::from_bits(bits).to_float());
    }
    }
    return 0;
}

} // namespace qkov::io
