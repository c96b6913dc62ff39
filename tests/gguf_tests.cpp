// GGUF reader: stories260K in GGUF and in Hugging Face safetensors give the same heads once the
// RoPE pairing is accounted for; hostile GGUF files, built byte by byte, fail with their cause.
#define BOOST_TEST_MODULE gguf
#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "qkov/model/head_attention.hpp"
#include "qkov/model/gguf_model.hpp"
#include "model_runs.hpp"
#include "error_text.hpp"
#include "shared_dir.hpp"

namespace fs = std::filesystem;
using namespace qkov::model;

namespace {

/// Rows of a d x D head matrix from interleaved order (pairs (2i, 2i+1)) to rotate_half order
/// (pairs (i, i + d/2)): what the Hugging Face conversion script's permute does to q_proj/k_proj.
matrix interleaved_to_rotate_half(const matrix& w)
{
    const std::size_t d = w.shape(0);
    matrix out = w;
    for (std::size_t i = 0; i < d / 2; ++i) {
        xt::view(out, i, xt::all()) = xt::view(w, 2 * i, xt::all());
        xt::view(out, i + d / 2, xt::all()) = xt::view(w, 2 * i + 1, xt::all());
    }
    return out;
}

matrix probe(std::size_t D)
{
    matrix x = xt::empty<double>({std::size_t{20}, D});
    for (std::size_t i = 0; i < 20; ++i)
        for (std::size_t j = 0; j < D; ++j) x(i, j) = std::sin(1.3 * static_cast<double>(i) + 0.7 * static_cast<double>(j) + 0.5);
    return x;
}

double max_gap(const std::vector<double>& a, const std::vector<double>& b)
{
    double g = 0;
    for (std::size_t i = 0; i < a.size(); ++i) g = std::max(g, std::abs(a[i] - b[i]));
    return g;
}

} // namespace

BOOST_AUTO_TEST_CASE(stories260k_gguf_and_hf_give_the_same_heads_after_the_pairing)
{
    const auto dir = qkov::test::shared_dir_or_skip("real_models/llama2c-stories260K");
    if (dir.empty()) return;
    const auto gguf = qkov::runs::open_model(dir / "stories260K.gguf");
    const auto hf = qkov::runs::open_model(dir / "hf");
    const auto& g = gguf.config();
    BOOST_TEST(g.hidden_size == 64u);
    BOOST_TEST(g.layers == 5u);
    BOOST_TEST(g.heads == 8u);
    BOOST_TEST(g.kv_heads == 4u);
    BOOST_TEST(g.head_dim == 8u);
    BOOST_TEST(g.vocab_size == 512u);
    BOOST_TEST((g.rope->pairing == qkov::rope_pairing::interleaved));
    BOOST_TEST((hf.config().rope->pairing == qkov::rope_pairing::rotate_half));
    BOOST_TEST(g.rope_layers.empty());  // GGUF names no per-layer schedule: every layer rotates
    BOOST_TEST(g.rope_at(g.layers - 1).has_value());
    BOOST_TEST(!g.any_nope_layer());
    double worst_right = 0, least_wrong = 1;
    for (std::size_t l = 0; l < g.layers; ++l) {
        const auto a = gguf.layer(l), b = hf.layer(l);
        for (std::size_t h = 0; h < g.heads; ++h) {
            BOOST_TEST_CONTEXT("layer " << l << " head " << h)
            {
                // Both files hold the same float32 values: equality is exact.
                BOOST_TEST(interleaved_to_rotate_half(a.heads[h].w_q) == b.heads[h].w_q);
                BOOST_TEST(interleaved_to_rotate_half(a.heads[h].w_k) == b.heads[h].w_k);
                BOOST_TEST(a.heads[h].w_v == b.heads[h].w_v);
                BOOST_TEST(a.heads[h].w_o == b.heads[h].w_o);
                BOOST_TEST(!(a.heads[h].w_q == b.heads[h].w_q));  // the stored orders do differ
                const matrix x = probe(64);
                const auto pa = last_query_probabilities(x, a.heads[h], g);
                const auto pb = last_query_probabilities(x, b.heads[h], hf.config());
                auto wrong = g.rope;
                wrong->pairing = qkov::rope_pairing::rotate_half;
                const auto pw = last_query_probabilities(x, a.heads[h], wrong);
                worst_right = std::max(worst_right, max_gap(pa, pb));
                least_wrong = std::min(least_wrong, max_gap(pa, pw));
            }
        }
    }
    BOOST_TEST(worst_right < 1e-12);
    // The wrong pairing changes every head's attention measurably (the test can fail).
    BOOST_TEST(least_wrong > 1e-3);
    BOOST_TEST_MESSAGE("right pairing: max gap " << worst_right << "; wrong pairing: min over heads of the max gap " << least_wrong);
    const auto ea = gguf.embedding(), eb = hf.embedding();
    BOOST_REQUIRE(ea && eb);
    BOOST_TEST(*ea == *eb);
}

namespace {

struct gguf_writer {
    std::string bytes = "GGUF";
    template <class T>
    gguf_writer& put(T v)
    {
        bytes.append(reinterpret_cast<const char*>(&v), sizeof v);
        return *this;
    }
    gguf_writer& str(const std::string& s)
    {
        put<std::uint64_t>(s.size());
        bytes += s;
        return *this;
    }
    fs::path write(const std::string& name) const
    {
        const auto dir = fs::temp_directory_path() / ("qkov-gguf-tests-" + std::to_string(::getpid()));
        fs::create_directories(dir);
        std::ofstream(dir / name, std::ios::binary) << bytes;
        return dir / name;
    }
};

std::string error_of(const fs::path& p)
{
    try {
        qkov::io::gguf_file f(p);
    } catch (const qkov::io::model_file_error& e) {
        return e.what();
    }
    BOOST_FAIL("no error for " + p.string());
    return {};
}

using qkov::test::contains;

/// A v3 file with one tensor "t" of type `type`, ne = {n}, and `data` after 32-byte alignment.
gguf_writer one_tensor(std::uint32_t type, std::uint64_t n, const std::string& data)
{
    gguf_writer w;
    w.put<std::uint32_t>(3).put<std::uint64_t>(1).put<std::uint64_t>(1);
    w.str("general.architecture").put<std::uint32_t>(8).str("llama");
    w.str("t").put<std::uint32_t>(1).put<std::uint64_t>(n).put<std::uint32_t>(type).put<std::uint64_t>(0);
    w.bytes.append((32 - w.bytes.size() % 32) % 32, '\0');
    w.bytes += data;
    return w;
}

} // namespace

BOOST_AUTO_TEST_CASE(q8_0_is_dequantised_block_by_block)
{
    // One block: scale 0.5 (fp16 0x3800), values -128, -1, 0, 1, 127 and zeros.
    std::string block(34, '\0');
    const std::uint16_t scale = 0x3800;
    std::memcpy(block.data(), &scale, 2);
    const std::int8_t q[5] = {-128, -1, 0, 1, 127};
    std::memcpy(block.data() + 2, q, 5);
    qkov::io::gguf_file f(one_tensor(8, 32, block).write("q8.gguf"));
    const auto* t = f.find("t");
    BOOST_REQUIRE(t);
    BOOST_TEST(t->at(0) == -64.0);
    BOOST_TEST(t->at(1) == -0.5);
    BOOST_TEST(t->at(2) == 0.0);
    BOOST_TEST(t->at(3) == 0.5);
    BOOST_TEST(t->at(4) == 63.5);
    BOOST_TEST(t->at(31) == 0.0);
}

BOOST_AUTO_TEST_CASE(gguf_bad_magic)
{
    gguf_writer w;
    w.bytes = "GGML";
    w.put<std::uint32_t>(3).put<std::uint64_t>(0).put<std::uint64_t>(0);
    BOOST_TEST(contains(error_of(w.write("magic.gguf")), "bad magic"));
}

BOOST_AUTO_TEST_CASE(gguf_absurd_counts)
{
    gguf_writer w;
    w.put<std::uint32_t>(3).put<std::uint64_t>(0).put<std::uint64_t>(std::uint64_t{1} << 60);
    BOOST_TEST(contains(error_of(w.write("kv.gguf")), "absurd key/value count"));
    gguf_writer t;
    t.put<std::uint32_t>(3).put<std::uint64_t>(std::uint64_t{1} << 60).put<std::uint64_t>(0);
    BOOST_TEST(contains(error_of(t.write("tensors.gguf")), "absurd tensor count"));
}

BOOST_AUTO_TEST_CASE(gguf_truncated)
{
    auto w = one_tensor(0, 16, std::string(64, '\0'));
    w.bytes.resize(w.bytes.size() - 10);
    BOOST_TEST(contains(error_of(w.write("trunc.gguf")), "tensor 't': data runs past the end of the file"));
    auto h = one_tensor(0, 16, "");
    h.bytes.resize(60);  // inside the architecture value (the header is 69 bytes up to the tensor info)
    BOOST_TEST(contains(error_of(h.write("trunc-header.gguf")), "truncated at byte"));
}

BOOST_AUTO_TEST_CASE(gguf_unknown_tensor_type_is_named)
{
    BOOST_TEST(contains(error_of(one_tensor(12, 256, std::string(256, '\0')).write("q4k.gguf")), "ggml type 12"));
}

namespace {

/// One metadata entry of a hostile-metadata test: the key after "llama.", and its type and bytes.
struct meta_entry {
    std::string key;
    std::uint32_t type;
    std::string value;
};

template <class T>
meta_entry meta(const std::string& key, std::uint32_t type, T v)
{
    return {key, type, std::string(reinterpret_cast<const char*>(&v), sizeof v)};
}

/// A llama GGUF without tensors (D = 8, one layer, one head of 8, vocabulary 4) plus `extra`
/// metadata, and the error its configuration throws ("(no error)" when it is accepted).
/// The header and metadata of a llama GGUF (D = 8, `layers` layers, one head of 8, vocabulary 4)
/// plus `extra` metadata, announcing `tensors` tensor infos (the caller writes them).
gguf_writer llama_metadata(const std::vector<meta_entry>& extra, std::uint64_t tensors = 0, std::uint32_t layers = 1)
{
    std::vector<meta_entry> all = {meta("embedding_length", 4, std::uint32_t{8}), meta("block_count", 4, layers),
                                   meta("attention.head_count", 4, std::uint32_t{1}), meta("vocab_size", 4, std::uint32_t{4})};
    all.insert(all.end(), extra.begin(), extra.end());
    gguf_writer w;
    w.put<std::uint32_t>(3).put<std::uint64_t>(tensors).put<std::uint64_t>(all.size() + 1);
    w.str("general.architecture").put<std::uint32_t>(8).str("llama");
    for (const auto& e : all) {
        w.str("llama." + e.key).put<std::uint32_t>(e.type);
        w.bytes += e.value;
    }
    return w;
}

/// Pads to the next multiple of 32, where the data starts.
gguf_writer& aligned(gguf_writer& w)
{
    w.bytes.append((32 - w.bytes.size() % 32) % 32, '\0');
    return w;
}

/// The error a llama GGUF without tensors plus `extra` metadata throws ("(no error)" when accepted).
std::string config_error(const std::string& name, const std::vector<meta_entry>& extra)
{
    auto w = llama_metadata(extra);
    const auto p = aligned(w).write(name);
    return qkov::test::error_of([&] { (void)gguf_config(qkov::io::gguf_file(p)); });
}

} // namespace

BOOST_AUTO_TEST_CASE(gguf_metadata_is_checked_as_config_json_is)
{
    BOOST_TEST(config_error("sound.gguf", {}) == "(no error)");
    // A rotary dimension wider than the head once overran the scan's buffers; an odd one failed
    // claim B4 instead of being named as bad input.
    BOOST_TEST(contains(config_error("rope-wide.gguf", {meta("rope.dimension_count", 4, std::uint32_t{10})}), "rotary dimension 10 exceeds the head width 8"));
    BOOST_TEST(contains(config_error("rope-odd.gguf", {meta("rope.dimension_count", 4, std::uint32_t{5})}), "rotary dimension 5 is odd"));
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    for (const double base : {nan, 0.0, -10000.0, inf})
        BOOST_TEST(contains(config_error("base.gguf", {meta("rope.freq_base", 12, base)}), "\"llama.rope.freq_base\" must be a positive finite number"));
    BOOST_TEST(contains(config_error("base-f32.gguf", {meta("rope.freq_base", 6, std::numeric_limits<float>::quiet_NaN())}), "must be a positive finite number"));
    BOOST_TEST(contains(config_error("base-tiny.gguf", {meta("rope.freq_base", 12, 1e-300)}), "RoPE base"));
    for (const double eps : {nan, -1e-5})
        BOOST_TEST(contains(config_error("eps.gguf", {meta("attention.layer_norm_rms_epsilon", 12, eps)}),
                            "\"llama.attention.layer_norm_rms_epsilon\" must be a positive finite number"));
    // A string where a number belongs was ignored (10000 used).
    meta_entry text{"rope.freq_base", 8, ""};
    const std::string s = "500000";
    const std::uint64_t n = s.size();
    text.value.append(reinterpret_cast<const char*>(&n), 8).append(s);
    BOOST_TEST(contains(config_error("base-string.gguf", {text}), "\"llama.rope.freq_base\" is not a number (\"500000\")"));
    BOOST_TEST(contains(config_error("context-zero.gguf", {meta("context_length", 4, std::uint32_t{0})}), "\"llama.context_length\" must be positive"));
}

// A metadata array once took ~35 bytes of memory per byte of file (a 40 MB array, 1.39 GB): long
// arrays are walked, bounds-checked and kept as their length only; short ones stay arrays.
BOOST_AUTO_TEST_CASE(gguf_long_metadata_arrays_are_skipped_not_materialised)
{
    const std::uint64_t n = std::uint64_t{1} << 20;
    gguf_writer w;
    w.put<std::uint32_t>(3).put<std::uint64_t>(0).put<std::uint64_t>(3);
    w.str("big").put<std::uint32_t>(9).put<std::uint32_t>(0).put<std::uint64_t>(n);
    w.bytes.append(n, '\x07');
    w.str("words").put<std::uint32_t>(9).put<std::uint32_t>(8).put<std::uint64_t>(100);
    for (int i = 0; i < 100; ++i) w.str(std::to_string(i));
    w.str("small").put<std::uint32_t>(9).put<std::uint32_t>(4).put<std::uint64_t>(2).put<std::uint32_t>(5).put<std::uint32_t>(6);
    w.bytes.append((32 - w.bytes.size() % 32) % 32, '\0');
    const qkov::io::gguf_file f(w.write("arrays.gguf"));
    BOOST_TEST(f.metadata().at("big") == (nlohmann::json{{"skipped_array_length", n}}));
    BOOST_TEST(f.metadata().at("words") == (nlohmann::json{{"skipped_array_length", 100}}));
    BOOST_TEST(f.metadata().at("small") == (nlohmann::json{5, 6}));
    // A skipped array is still bounds-checked: one byte short is truncation.
    gguf_writer t;
    t.put<std::uint32_t>(3).put<std::uint64_t>(0).put<std::uint64_t>(1);
    t.str("big").put<std::uint32_t>(9).put<std::uint32_t>(6).put<std::uint64_t>(1000);
    t.bytes.append(3999, '\0');
    BOOST_TEST(contains(error_of(t.write("arrays-short.gguf")), "truncated at byte"));
}

// llama.cpp requires a power-of-two alignment and tensor offsets that are multiples of it; both
// were accepted.
BOOST_AUTO_TEST_CASE(gguf_alignment_must_be_a_power_of_two_and_offsets_aligned)
{
    gguf_writer w;
    w.put<std::uint32_t>(3).put<std::uint64_t>(0).put<std::uint64_t>(1);
    w.str("general.alignment").put<std::uint32_t>(4).put<std::uint32_t>(3);
    BOOST_TEST(contains(error_of(w.write("align3.gguf")), "general.alignment 3 is not a power of two"));
    gguf_writer t;
    t.put<std::uint32_t>(3).put<std::uint64_t>(1).put<std::uint64_t>(0);
    t.str("t").put<std::uint32_t>(1).put<std::uint64_t>(4).put<std::uint32_t>(0).put<std::uint64_t>(4);
    t.bytes.append((32 - t.bytes.size() % 32) % 32, '\0');
    t.bytes.append(64, '\0');
    BOOST_TEST(contains(error_of(t.write("unaligned.gguf")), "tensor 't': offset 4 is not a multiple of the alignment 32"));
}

// A GGUF string is any bytes: quoting one that is not UTF-8 in a message threw nlohmann's
// type_error (found by fuzzing) instead of naming the bad value.
BOOST_AUTO_TEST_CASE(gguf_value_quoted_in_a_message_may_be_any_bytes)
{
    meta_entry text{"rope.freq_base", 8, ""};
    const std::string bytes = "\x9f\xff";
    const std::uint64_t n = bytes.size();
    text.value.append(reinterpret_cast<const char*>(&n), 8).append(bytes);
    BOOST_TEST(contains(config_error("base-bytes.gguf", {text}), "\"llama.rope.freq_base\" is not a number"));
}

namespace {
meta_entry text_meta(const std::string& key, const std::string& value)
{
    meta_entry e{key, 8, ""};
    const std::uint64_t n = value.size();
    e.value.append(reinterpret_cast<const char*>(&n), 8).append(value);
    return e;
}
} // namespace

// What changes the scores or the residual stream in a way qkov does not compute is refused by its
// key (io/unmodelled_settings.hpp); linear RoPE scaling and a sliding window are read.
BOOST_AUTO_TEST_CASE(gguf_settings_qkov_does_not_model_are_refused_by_name)
{
    BOOST_TEST(contains(config_error("softcap.gguf", {meta("attn_logit_softcapping", 6, 50.0f)}), "\"llama.attn_logit_softcapping\" is 50.0: it soft-caps"));
    BOOST_TEST(contains(config_error("final-softcap.gguf", {meta("final_logit_softcapping", 6, 30.0f)}), "\"llama.final_logit_softcapping\""));
    BOOST_TEST(contains(config_error("scale.gguf", {meta("attention.scale", 6, 0.125f)}), "\"llama.attention.scale\""));
    BOOST_TEST(contains(config_error("clamp.gguf", {meta("attention.clamp_kqv", 6, 8.0f)}), "clamps every query, key and value"));
    BOOST_TEST(contains(config_error("experts.gguf", {meta("expert_count", 4, std::uint32_t{8})}), "mixture of experts"));
    BOOST_TEST(config_error("no-experts.gguf", {meta("expert_count", 4, std::uint32_t{0})}) == "(no error)");
    BOOST_TEST(contains(config_error("attn-factor.gguf", {meta("rope.scaling.attn_factor", 6, 1.2f)}), "YaRN's attention factor"));
    BOOST_TEST(config_error("attn-factor-one.gguf", {meta("rope.scaling.attn_factor", 6, 1.0f)}) == "(no error)");
    BOOST_TEST(contains(config_error("yarn.gguf", {text_meta("rope.scaling.type", "yarn")}), "llama.rope.scaling.type is \"yarn\""));
    BOOST_TEST(config_error("none.gguf", {text_meta("rope.scaling.type", "none")}) == "(no error)");
    BOOST_TEST(config_error("linear.gguf", {text_meta("rope.scaling.type", "linear"), meta("rope.scaling.factor", 6, 4.0f)}) == "(no error)");
}

BOOST_AUTO_TEST_CASE(gguf_linear_rope_scaling_and_the_sliding_window_are_read)
{
    auto w = llama_metadata({text_meta("rope.scaling.type", "linear"), meta("rope.scaling.factor", 6, 4.0f), meta("attention.sliding_window", 4, std::uint32_t{16})},
                            0, 2);
    const auto c = gguf_config(qkov::io::gguf_file(aligned(w).write("scaled.gguf")));
    BOOST_REQUIRE(c.rope && c.rope->scaling);
    BOOST_TEST(c.rope->scaling->type == "linear");
    BOOST_TEST(c.rope->scaling->factor == 4.0);
    BOOST_TEST((c.attention_windows == std::vector<std::size_t>{16, 16}));
    BOOST_TEST(c.window_at(1) == 16u);
}

// A tensor outside the llama mapping was dropped without a word (llama.cpp's rope_freqs.weight:
// Llama 3.1's per-pair RoPE factors, so every such GGUF ran with unscaled angles); it is refused.
BOOST_AUTO_TEST_CASE(gguf_tensors_outside_the_mapping_are_refused_not_dropped)
{
    auto w = llama_metadata({}, 1);
    w.str("rope_freqs.weight").put<std::uint32_t>(1).put<std::uint64_t>(4).put<std::uint32_t>(0).put<std::uint64_t>(0);
    aligned(w).bytes += std::string(16, '\0');
    const auto p = w.write("rope-freqs.gguf");
    const auto error = qkov::test::error_of([&] { (void)open_gguf_model(p); });
    BOOST_TEST(contains(error, "tensor 'rope_freqs.weight': not modelled"));
    BOOST_TEST(contains(error, "divides each RoPE pair's angle by its own factor"));
}
