// A GGUF file (llama.cpp, versions 2 and 3), memory-mapped: metadata, tensor infos, and tensor
// views of types F32, F16, BF16 and Q8_0 (dequantised on read).
//
// Layout: "GGUF", version u32, n_tensors u64, n_kv u64, the key/values (key string, type u32,
// value), the tensor infos (name, n_dims u32, ne[n_dims] u64 with ne[0] fastest, type u32,
// offset u64), then the data from the next multiple of general.alignment (default 32). Strings
// are a u64 length and bytes. Every count is bounded by the bytes left before anything is
// allocated (a 24-byte file can claim 10^18 entries), every read is bounds-checked, arrays nest at
// most 2 deep, and each tensor must lie inside the data, not overlap another, and have a shape
// whose product does not overflow. Tensor views use the row-major shape (ne reversed), so a
// [ne0 = D, ne1 = H d] projection is an [H d, D] matrix, as nn.Linear stores it.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "qkov/io/checked_size.hpp"
#include "qkov/io/mapped_file.hpp"
#include "qkov/io/model_file_error.hpp"
#include "qkov/io/tensor_view.hpp"

namespace qkov::io {

class gguf_file : public tensor_source {
public:
    /// Metadata arrays up to this length are kept as JSON arrays; a longer one as {"skipped_array_length": n}.
    static constexpr std::uint64_t largest_kept_array = 64;

    explicit gguf_file(const std::filesystem::path& path) : map_(path)
    {
        const auto bytes = map_.bytes();
        cursor c{bytes, 0, map_.path()};
        if (bytes.size() < 24 || std::memcmp(bytes.data(), "GGUF", 4) != 0) throw model_file_error(map_.path(), "not a GGUF file (bad magic)");
        c.at = 4;
        version_ = c.u32();
        if (version_ != 2 && version_ != 3) throw model_file_error(map_.path(), "GGUF version " + std::to_string(version_) + " (qkov reads 2 and 3)");
        const std::uint64_t n_tensors = c.u64(), n_kv = c.u64();
        // The smallest key/value is 8 + 4 + 1 bytes, the smallest tensor info 8 + 4 + 4 + 8.
        if (n_kv > c.left() / 13) throw model_file_error(map_.path(), "absurd key/value count " + std::to_string(n_kv) + " for a file of this size");
        if (n_tensors > c.left() / 24) throw model_file_error(map_.path(), "absurd tensor count " + std::to_string(n_tensors) + " for a file of this size");
        for (std::uint64_t i = 0; i < n_kv; ++i) {
            std::string key = c.string();
            const std::uint32_t type = c.u32();
            if (metadata_.contains(key)) throw model_file_error(map_.path(), "metadata key '" + key + "' appears twice");
            metadata_[key] = c.value(type, 0);
        }
        struct info {
            std::string name;
            std::vector<std::size_t> shape;
            tensor_dtype dtype;
            std::uint64_t offset, count;
        };
        std::vector<info> infos;
        for (std::uint64_t i = 0; i < n_tensors; ++i) {
            info t;
            t.name = c.string();
            const std::uint32_t dims = c.u32();
            if (dims == 0 || dims > 4) throw model_file_error(map_.path(), t.name, std::to_string(dims) + " dimensions (GGUF allows 1 to 4)");
            std::vector<std::uint64_t> ne(dims);
            t.count = 1;
            for (auto& n : ne) {
                n = c.u64();
                if (n > (std::uint64_t{1} << 40) || (n != 0 && t.count > std::numeric_limits<std::uint64_t>::max() / n))
                    throw model_file_error(map_.path(), t.name, "dimension " + std::to_string(n) + " is absurd or overflows the element count");
                t.count *= n;
            }
            t.shape.assign(ne.rbegin(), ne.rend());
            const std::uint32_t type = c.u32();
            switch (type) {
            case 0: t.dtype = tensor_dtype::f32; break;
            case 1: t.dtype = tensor_dtype::f16; break;
            case 8: t.dtype = tensor_dtype::q8_0; break;
            case 30: t.dtype = tensor_dtype::bf16; break;
            default: throw model_file_error(map_.path(), t.name, "ggml type " + std::to_string(type) + " (qkov reads F32 = 0, F16 = 1, Q8_0 = 8, BF16 = 30)");
            }
            t.offset = c.u64();
            infos.push_back(std::move(t));
        }
        std::uint64_t alignment = 32;
        if (const auto it = metadata_.find("general.alignment"); it != metadata_.end()) {
            // llama.cpp requires a power of two, and so the offsets below can be checked against it.
            if (!it->second.is_number_unsigned() || it->second.get<std::uint64_t>() == 0 || it->second.get<std::uint64_t>() > 65536 ||
                !std::has_single_bit(it->second.get<std::uint64_t>()))
                throw model_file_error(map_.path(), "general.alignment " +
                                                        (it->second.is_number_unsigned() ? std::to_string(it->second.get<std::uint64_t>()) : std::string("(not an unsigned integer)")) +
                                                        " is not a power of two up to 65536");
            alignment = it->second.get<std::uint64_t>();
        }
        const std::uint64_t data_start = (c.at + alignment - 1) / alignment * alignment;
        if (data_start > bytes.size()) throw model_file_error(map_.path(), "truncated: the tensor data would start past the end of the file");
        const auto data = bytes.subspan(static_cast<std::size_t>(data_start));
        for (auto& t : infos) {
            const std::uint64_t size = byte_count(t.dtype, static_cast<std::size_t>(t.count));
            if (t.dtype == tensor_dtype::q8_0 && size == 0 && t.count != 0)
                throw model_file_error(map_.path(), t.name, "Q8_0 tensor of " + std::to_string(t.count) + " values, not a whole number of 32-value blocks");
            if (t.offset % alignment != 0)
                throw model_file_error(map_.path(), t.name, "offset " + std::to_string(t.offset) + " is not a multiple of the alignment " + std::to_string(alignment));
            if (t.offset > data.size() || size > data.size() - t.offset)
                throw model_file_error(map_.path(), t.name, "data runs past the end of the file (truncated or a bad offset)");
            if (tensors_.contains(t.name)) throw model_file_error(map_.path(), t.name, "the name appears twice");
            tensor_view v;
            v.file = map_.path();
            v.watch = map_.watch();
            v.name = t.name;
            v.dtype = t.dtype;
            v.shape = t.shape;
            v.count = static_cast<std::size_t>(t.count);
            v.bytes = data.subspan(static_cast<std::size_t>(t.offset), static_cast<std::size_t>(size));
            tensors_.add(std::move(v));
        }
        if (const auto [a, b] = tensors_.first_overlap(); !a.empty())
            throw model_file_error(map_.path(), a, "its bytes overlap those of tensor '" + b + "'");
    }

    [[nodiscard]] const tensor_view* find(const std::string& name) const override { return tensors_.find(name); }
    [[nodiscard]] std::vector<std::string> names() const override { return tensors_.names(); }
    [[nodiscard]] std::string format() const override { return "gguf v" + std::to_string(version_); }
    [[nodiscard]] std::string location() const override { return map_.path(); }
    [[nodiscard]] const std::map<std::string, nlohmann::json>& metadata() const { return metadata_; }

private:
    struct cursor {
        std::span<const std::byte> bytes;
        std::size_t at;
        const std::string& file;

        [[nodiscard]] std::size_t left() const { return bytes.size() - at; }
        void need(std::uint64_t n) const
        {
            if (n > left()) throw model_file_error(file, "truncated at byte " + std::to_string(at) + " (needs " + std::to_string(n) + " more)");
        }
        template <class T>
        T read()
        {
            need(sizeof(T));
            T v;
            std::memcpy(&v, bytes.data() + at, sizeof(T));
            at += sizeof(T);
            return v;
        }
        std::uint32_t u32() { return read<std::uint32_t>(); }
        std::uint64_t u64() { return read<std::uint64_t>(); }
        std::string string()
        {
            const std::uint64_t n = u64();
            need(n);
            std::string s(reinterpret_cast<const char*>(bytes.data() + at), static_cast<std::size_t>(n));
            at += static_cast<std::size_t>(n);
            return s;
        }
        nlohmann::json value(std::uint32_t type, int depth)
        {
            switch (type) {
            case 0: return read<std::uint8_t>();
            case 1: return read<std::int8_t>();
            case 2: return read<std::uint16_t>();
            case 3: return read<std::int16_t>();
            case 4: return read<std::uint32_t>();
            case 5: return read<std::int32_t>();
            case 6: return read<float>();
            case 7: return read<std::uint8_t>() != 0;
            case 8: return string();
            case 10: return read<std::uint64_t>();
            case 11: return read<std::int64_t>();
            case 12: return read<double>();
            case 9: {
                if (depth >= 2) throw model_file_error(file, "metadata arrays nest deeper than 2");
                const std::uint32_t inner = u32();
                const std::uint64_t n = u64();
                if (n > left()) throw model_file_error(file, "absurd metadata array length " + std::to_string(n));
                // A value in nlohmann::json takes ~35 times the byte it came from: a long array (a
                // tokenizer's vocabulary, or a hostile 40 MB one) is walked and bounds-checked but
                // kept only as its length; qkov reads no array (gguf_config reads scalars).
                if (n > largest_kept_array) {
                    skip_elements(inner, n, depth + 1);
                    return nlohmann::json{{"skipped_array_length", n}};
                }
                nlohmann::json a = nlohmann::json::array();
                for (std::uint64_t i = 0; i < n; ++i) a.push_back(value(inner, depth + 1));
                return a;
            }
            default: throw model_file_error(file, "unknown metadata value type " + std::to_string(type) + " at byte " + std::to_string(at));
            }
        }
        /// Moves past `n` values of `type` as value() would read them, building nothing: values of
        /// one width at once (in checked arithmetic), strings and arrays one by one.
        void skip_elements(std::uint32_t type, std::uint64_t n, int depth)
        {
            static constexpr std::uint64_t widths[] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};
            if (type < std::size(widths) && widths[type] != 0) {
                const auto bytes_needed = checked_product({n, widths[type]});
                if (!bytes_needed) throw model_file_error(file, "absurd metadata array length " + std::to_string(n));
                need(*bytes_needed);
                at += static_cast<std::size_t>(*bytes_needed);
                return;
            }
            for (std::uint64_t i = 0; i < n; ++i) {
                if (type == 8) {
                    const std::uint64_t length = u64();
                    need(length);
                    at += static_cast<std::size_t>(length);
                } else if (type == 9) {
                    if (depth >= 2) throw model_file_error(file, "metadata arrays nest deeper than 2");
                    const std::uint32_t inner = u32();
                    const std::uint64_t count = u64();
                    if (count > left()) throw model_file_error(file, "absurd metadata array length " + std::to_string(count));
                    skip_elements(inner, count, depth + 1);
                } else {
                    (void)value(type, depth);  // names the unknown type
                }
            }
        }
    };

    mapped_file map_;
    std::uint32_t version_ = 0;
    std::map<std::string, nlohmann::json> metadata_;
    tensor_table tensors_;
};

} // namespace qkov::io
