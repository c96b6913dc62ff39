// A tensor as found in a model file: its name, element type, shape and bytes (a view into a
// mapped file, never a copy), and the interface every container (safetensors, sharded
// safetensors, GGUF) offers to the model layer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "qkov/io/mapped_file_watch.hpp"
#include "qkov/io/tensor_dtype.hpp"

namespace qkov::io {

struct tensor_view {
    std::string file;                  ///< for messages
    std::string name;
    tensor_dtype dtype = tensor_dtype::f32;
    std::vector<std::size_t> shape;    ///< row-major (C order), slowest axis first
    std::span<const std::byte> bytes;  ///< exactly byte_count(dtype, product(shape))
    std::size_t count = 0;             ///< product(shape)
    /// The file the bytes are mapped from, asked before they are read (io::read_block): a file
    /// truncated since it was mapped would make the read SIGBUS. Null for bytes held in memory.
    std::shared_ptr<const mapped_file_watch> watch;

    [[nodiscard]] std::size_t elements() const { return count; }
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

/// The tensors of one file, by name, with the checks every container makes.
class tensor_table {
public:
    [[nodiscard]] const tensor_view* find(const std::string& name) const
    {
        const auto it = tensors_.find(name);
        return it == tensors_.end() ? nullptr : &it->second;
    }
    [[nodiscard]] std::vector<std::string> names() const
    {
        std::vector<std::string> out;
        for (const auto& [name, t] : tensors_) out.push_back(name);
        return out;
    }
    [[nodiscard]] bool contains(const std::string& name) const { return tensors_.contains(name); }
    void add(tensor_view t) { tensors_.emplace(t.name, std::move(t)); }
    /// The name of a tensor whose bytes overlap another's and that other's name, or empty.
    [[nodiscard]] std::pair<std::string, std::string> first_overlap() const
    {
        std::vector<const tensor_view*> order;
        for (const auto& [name, t] : tensors_)
            if (!t.bytes.empty()) order.push_back(&t);
        std::sort(order.begin(), order.end(), [](const auto* a, const auto* b) { return a->bytes.data() < b->bytes.data(); });
        for (std::size_t i = 1; i < order.size(); ++i)
            if (order[i]->bytes.data() < order[i - 1]->bytes.data() + order[i - 1]->bytes.size()) return {order[i]->name, order[i - 1]->name};
        return {};
    }

private:
    std::map<std::string, tensor_view> tensors_;
};

} // namespace qkov::io
