// A tensor as found in a model file: its name, element type, shape and bytes (a view into a
// mapped file, never a copy), and the interface every container (safetensors, sharded
// safetensors, GGUF) offers to the model layer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "qkov/io/tensor_dtype.hpp"

namespace qkov::io {

struct tensor_view {
    std::string file;                  ///< for messages
    std::string name;
    tensor_dtype dtype = tensor_dtype::f32;
    std::vector<std::size_t> shape;    ///< row-major (C order), slowest axis first
    std::span<const std::byte> bytes;  ///< exactly product(shape) * item_size(dtype)

    [[nodiscard]] std::size_t elements() const { return bytes.size() / item_size(dtype); }
    [[nodiscard]] double at(std::size_t i) const { return element_as_double(bytes.data(), dtype, i); }
};

/// Tensors by name. Lookups return nullptr for a name the container does not hold.
class tensor_source {
public:
    virtual ~tensor_source() = default;
    [[nodiscard]] virtual const tensor_view* find(const std::string& name) const = 0;
    [[nodiscard]] virtual std::vector<std::string> names() const = 0;
    [[nodiscard]] virtual std::string format() const = 0;  ///< "safetensors", "gguf"
    [[nodiscard]] virtual std::string location() const = 0;  ///< the file or directory, for messages
};

} // namespace qkov::io
