// A llama2.c checkpoint (run.c's "legacy" .bin format), memory-mapped and validated.
//
// Layout: seven little-endian int32 (dim, hidden_dim, n_layers, n_heads, n_kv_heads, vocab_size,
// seq_len; a negative vocab_size means a separate classifier is stored at the end), then float32
// arrays with no padding, in this order, each stacked over the layers:
//   token_embedding [V, D], rms_att [L, D], wq [L, H d, D], wk [L, Hkv d, D], wv [L, Hkv d, D],
//   wo [L, D, H d], rms_ffn [L, D], w1 [L, F, D], w2 [L, D, F], w3 [L, F, D], rms_final [D],
//   freq_cis_real [seq_len, d / 2], freq_cis_imag [seq_len, d / 2], and wcls [V, D] when unshared.
// Each matrix is [out, in] like an nn.Linear weight (run.c multiplies W x with W row-major), so the
// tensors are handed out under the Hugging Face Llama names (w1 = gate_proj, w3 = up_proj, w2 =
// down_proj) and the head model reads them as it reads a Hugging Face file. The q/k rows stay in
// llama2.c's interleaved RoPE order (pairs (2i, 2i + 1)); the freq_cis tables are not used (run.c
// computes its angles itself) and are not handed out.
//
// The file is untrusted: every header value must be positive and bounded, the head counts must
// divide, and the exact file size the header implies (computed without overflow) must be the file's
// size before any tensor is handed out. A truncated or padded file is an error, never zeros.
#pragma once

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "qkov/io/checked_size.hpp"
#include "qkov/io/mapped_file.hpp"
#include "qkov/io/model_file_error.hpp"
#include "qkov/io/tensor_view.hpp"

namespace qkov::io {

/// The seven header values of a llama2.c checkpoint.
struct llama2c_header {
    std::size_t dim = 0, hidden_dim = 0, layers = 0, heads = 0, kv_heads = 0, vocab_size = 0, seq_len = 0;
    bool shared_classifier = true;  ///< false when the header's vocab_size is negative (wcls stored)
    [[nodiscard]] std::size_t head_dim() const { return dim / heads; }
};

class llama2c_file : public tensor_source {
public:
    static constexpr std::size_t header_bytes = 7 * 4;
    /// Largest accepted header value: far above any llama2.c model, far below an overflow.
    static constexpr std::int64_t largest_size = std::int64_t{1} << 24;

    explicit llama2c_file(const std::filesystem::path& path) : map_(path)
    {
        const auto bytes = map_.bytes();
        if (bytes.size() < header_bytes)
            throw model_file_error(map_.path(), "a llama2.c checkpoint starts with a 28-byte header; the file has " + std::to_string(bytes.size()) + " bytes");
        const char* names[] = {"dim", "hidden_dim", "n_layers", "n_heads", "n_kv_heads", "vocab_size", "seq_len"};
        std::size_t values[7];
        for (int i = 0; i < 7; ++i) {
            std::int32_t v;
            std::memcpy(&v, bytes.data() + 4 * i, 4);
            std::int64_t wide = v;
            if (i == 5 && wide < 0) header_.shared_classifier = false, wide = -wide;
            if (wide <= 0 || wide > largest_size)
                throw model_file_error(map_.path(), std::string("header value ") + names[i] + " = " + std::to_string(v) + " must be positive and at most " +
                                                        std::to_string(largest_size));
            values[i] = static_cast<std::size_t>(wide);
        }
        header_ = {values[0], values[1], values[2], values[3], values[4], values[5], values[6], header_.shared_classifier};
        const auto& h = header_;
        if (h.dim % h.heads != 0)
            throw model_file_error(map_.path(), "n_heads = " + std::to_string(h.heads) + " does not divide dim = " + std::to_string(h.dim));
        if (h.heads % h.kv_heads != 0)
            throw model_file_error(map_.path(), "n_kv_heads = " + std::to_string(h.kv_heads) + " does not divide n_heads = " + std::to_string(h.heads));
        if (h.head_dim() % 2 != 0) throw model_file_error(map_.path(), "the head width dim / n_heads = " + std::to_string(h.head_dim()) + " is odd: RoPE needs pairs");

        // Products of three header values reach 2^72: the size is summed in checked arithmetic, so
        // a header cannot be solved for a wrapped size that equals the file's.
        const std::uint64_t D = h.dim, F = h.hidden_dim, L = h.layers, V = h.vocab_size, d = h.head_dim(), q = h.heads * d, kv = h.kv_heads * d;
        checked_size floats;
        floats.add({V, D}).add({L, D}).add({L, q, D}).add({2, L, kv, D}).add({L, D, q}).add({L, D}).add({3, L, F, D}).add({D}).add({h.seq_len, d});
        if (!h.shared_classifier) floats.add({V, D});
        const auto expected = floats.value() ? checked_size{}.add({header_bytes}).add({4, *floats.value()}).value() : std::nullopt;
        const std::string described = "the header (dim " + std::to_string(D) + ", hidden_dim " + std::to_string(F) + ", " + std::to_string(L) +
                                      " layers, vocabulary " + std::to_string(V) + ", seq_len " + std::to_string(h.seq_len) + ")";
        if (!expected)
            throw model_file_error(map_.path(), described + " implies more bytes than 64 bits can count, the file has " + std::to_string(bytes.size()) +
                                                    " (a damaged llama2.c checkpoint, or not one at all)");
        if (bytes.size() != *expected)
            throw model_file_error(map_.path(), described + " implies " + std::to_string(*expected) + " bytes, the file has " + std::to_string(bytes.size()) +
                                                    " (a damaged llama2.c checkpoint, or not one at all: PyTorch pickles are refused)");

        std::size_t at = header_bytes;
        // Hands out the next `per_layer_shape` array of each layer (or one array when global).
        const auto next = [&](const std::string& name, std::vector<std::size_t> shape) {
            std::size_t count = 1;
            for (const std::size_t n : shape) count *= n;
            tensor_view v;
            v.file = map_.path();
            v.watch = map_.watch();
            v.name = name;
            v.dtype = tensor_dtype::f32;
            v.shape = std::move(shape);
            v.count = count;
            v.bytes = bytes.subspan(at, 4 * count);
            at += 4 * count;
            if (!name.empty()) tensors_.add(std::move(v));
        };
        const auto layer_name = [](std::size_t l, const char* suffix) { return "model.layers." + std::to_string(l) + "." + suffix; };
        const auto stacked = [&](const char* suffix, std::vector<std::size_t> shape) {
            for (std::size_t l = 0; l < L; ++l) next(layer_name(l, suffix), shape);
        };
        next("model.embed_tokens.weight", {V, D});
        stacked("input_layernorm.weight", {D});
        stacked("self_attn.q_proj.weight", {q, D});
        stacked("self_attn.k_proj.weight", {kv, D});
        stacked("self_attn.v_proj.weight", {kv, D});
        stacked("self_attn.o_proj.weight", {D, q});
        stacked("post_attention_layernorm.weight", {D});
        stacked("mlp.gate_proj.weight", {F, D});
        stacked("mlp.down_proj.weight", {D, F});
        stacked("mlp.up_proj.weight", {F, D});
        next("model.norm.weight", {D});
        next("", {h.seq_len, d});  // freq_cis_real and freq_cis_imag, half a head wide each: skipped
        if (!h.shared_classifier) next("lm_head.weight", {V, D});
    }

    [[nodiscard]] const llama2c_header& header() const { return header_; }
    [[nodiscard]] const tensor_view* find(const std::string& name) const override { return tensors_.find(name); }
    [[nodiscard]] std::vector<std::string> names() const override { return tensors_.names(); }
    [[nodiscard]] std::string format() const override { return "llama2.c"; }
    [[nodiscard]] std::string location() const override { return map_.path(); }

private:
    mapped_file map_;
    llama2c_header header_;
    tensor_table tensors_;
};

/// True when the file is a zip archive, as PyTorch writes its .bin checkpoints: refused, never read
/// as llama2.c. (An older, bare pickle cannot be told from a llama2.c header by its first bytes;
/// it fails the size check instead.)
inline bool is_zip_archive(const std::filesystem::path& path)
{
    const mapped_file map(path);
    const auto b = map.bytes();
    return b.size() >= 4 && std::memcmp(b.data(), "PK\x03\x04", 4) == 0;
}

} // namespace qkov::io
