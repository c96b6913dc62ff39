// What qkov does not model is refused by name (io/unmodelled_settings.hpp, docs/unmodelled.md):
// every row of the table, the settings that once went through silently (a Qwen3's QK-norm, a Gemma
// 2's score scale and soft-capping, a Mistral's sliding window: each certified a label its model's
// own attention contradicts), and what is modelled with a condition (a sliding window that does
// not bind, RoPE settings keyed by layer type, dynamic scaling within the context).
#define BOOST_TEST_MODULE unmodelled
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "qkov/forward/forward_pass.hpp"
#include "qkov/io/model_config.hpp"
#include "qkov/io/unmodelled_settings.hpp"
#include "qkov/scan/scan_model.hpp"
#include "model_runs.hpp"
#include "error_text.hpp"
#include "model_variants.hpp"
#include "shared_dir.hpp"

using namespace qkov;
using test::contains;

namespace {

nlohmann::json llama_config(const nlohmann::json& extra = nlohmann::json::object())
{
    nlohmann::json c = nlohmann::json::parse(R"({"model_type":"llama","hidden_size":64,"num_hidden_layers":2,"num_attention_heads":2,
                                                  "head_dim":32,"vocab_size":8,"max_position_embeddings":128})");
    c.merge_patch(extra);
    return c;
}

std::string config_error(const nlohmann::json& c)
{
    return test::error_of([&] { (void)io::parse_model_config(c, "config.json"); });
}

/// A value of the key at which the model computes something qkov does not.
nlohmann::json unmodelled_value(io::modelled_when when)
{
    switch (when) {
    case io::modelled_when::absent: return 1.5;
    case io::modelled_when::is_false: return true;
    case io::modelled_when::is_true: return false;
    case io::modelled_when::is_zero: return 2;
    case io::modelled_when::is_one: return 2.0;
    case io::modelled_when::head_dim: return 36;  // the head width is 32
    }
    return nullptr;
}

/// A value at which it computes what qkov computes (null: only absence is).
nlohmann::json modelled_value(io::modelled_when when)
{
    switch (when) {
    case io::modelled_when::absent: return nullptr;
    case io::modelled_when::is_false: return false;
    case io::modelled_when::is_true: return true;
    case io::modelled_when::is_zero: return 0;
    case io::modelled_when::is_one: return 1.0;
    case io::modelled_when::head_dim: return 32;
    }
    return nullptr;
}

/// `text` in backquotes, as the Markdown writes a key (built piece by piece: g++ 12's -Wrestrict
/// misreads "`" + std::string(...) + "`" once inlined).
std::string in_backquotes(std::string_view text)
{
    std::string out(1, '`');
    out.append(text);
    out.push_back('`');
    return out;
}

std::string source_file(const std::string& relative)
{
    std::ifstream in(std::filesystem::path(QKOV_SOURCE_DIR) / relative);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

} // namespace

BOOST_AUTO_TEST_CASE(every_unmodelled_config_key_is_refused_at_another_value_than_qkovs)
{
    for (const auto& s : io::unmodelled_config_keys) {
        const std::string key(s.key);
        const auto refused = config_error(llama_config({{key, unmodelled_value(s.modelled)}}));
        BOOST_TEST(contains(refused, "\"" + key + "\" is "), key << ": " << refused);
        BOOST_TEST(contains(refused, std::string(s.effect)), key << ": " << refused);
        BOOST_TEST(config_error(llama_config({{key, modelled_value(s.modelled)}})) == "(no error)", key);
    }
    // The settings of the soundness report, by hand: Gemma-2-27B's score scale for a head of 32,
    // its soft-capping, and GPT-2's two score flags (never read before).
    BOOST_TEST(contains(config_error(llama_config({{"query_pre_attn_scalar", 36}})), "divides the attention scores by sqrt(query_pre_attn_scalar)"));
    BOOST_TEST(config_error(llama_config({{"query_pre_attn_scalar", 32}})) == "(no error)");
    BOOST_TEST(contains(config_error(llama_config({{"attn_logit_softcapping", 50.0}})), "\"attn_logit_softcapping\" is 50.0"));
    const auto gpt2 = nlohmann::json::parse(R"({"model_type":"gpt2","n_embd":8,"n_layer":2,"n_head":2,"vocab_size":4})");
    auto flag = gpt2;
    flag["scale_attn_by_inverse_layer_idx"] = true;
    BOOST_TEST(contains(config_error(flag), "divides layer l's attention scores by l + 1"));
    flag = gpt2;
    flag["scale_attn_weights"] = false;
    BOOST_TEST(contains(config_error(flag), "undivided by sqrt(head_dim)"));
    // GPT-NeoX implements the parallel residual; elsewhere it is refused.
    auto neox = nlohmann::json::parse(R"({"model_type":"gpt_neox","hidden_size":64,"num_hidden_layers":1,"num_attention_heads":4,"vocab_size":2})");
    neox["use_parallel_residual"] = false;
    BOOST_TEST(config_error(neox) == "(no error)");
    BOOST_TEST(contains(config_error(llama_config({{"use_parallel_residual", true}})), "computes attention and MLP from the same input"));
}

BOOST_AUTO_TEST_CASE(unmodelled_architectures_are_refused_with_the_reason)
{
    for (const char* type : {"gemma", "gemma2", "gemma3", "olmo2"}) {
        const auto refused = config_error(llama_config({{"model_type", type}}));
        BOOST_TEST(contains(refused, "model_type \"" + std::string(type) + "\" is not modelled: "), refused);
    }
    BOOST_TEST(contains(config_error(llama_config({{"model_type", "gemma2"}})), "soft-caps attention scores"));
}

BOOST_AUTO_TEST_CASE(sliding_windows_are_read_per_model_type_and_layer)
{
    // Mistral applies a stated window by default; Qwen2 only when use_sliding_window says so.
    BOOST_TEST((io::parse_model_config(llama_config({{"model_type", "mistral"}, {"sliding_window", 8}}), "c").attention_windows ==
                std::vector<std::size_t>{8, 8}));
    BOOST_TEST(io::parse_model_config(llama_config({{"model_type", "mistral"}, {"sliding_window", nullptr}}), "c").attention_windows.empty());
    BOOST_TEST(io::parse_model_config(llama_config({{"model_type", "qwen2"}, {"sliding_window", 4096}, {"use_sliding_window", false}}), "c")
                   .attention_windows.empty());
    BOOST_TEST(io::parse_model_config(llama_config({{"model_type", "qwen2"}, {"sliding_window", 4096}}), "c").attention_windows.empty());
    BOOST_TEST((io::parse_model_config(llama_config({{"model_type", "qwen2"}, {"sliding_window", 16}, {"use_sliding_window", true}}), "c")
                    .attention_windows == std::vector<std::size_t>{16, 16}));
    // A string where the flag belongs was read as no window at all.
    BOOST_TEST(contains(config_error(llama_config({{"use_sliding_window", "true"}, {"sliding_window", 8}})), "\"use_sliding_window\" is not true or false"));
    const auto by_layer = io::parse_model_config(llama_config({{"layer_types", {"sliding_attention", "full_attention"}}, {"sliding_window", 8}}), "c");
    BOOST_TEST((by_layer.attention_windows == std::vector<std::size_t>{8, 0}));
    BOOST_TEST(by_layer.window_at(1) == 0u);
    // The window is exact for sequences that fit it, and refused beyond.
    BOOST_TEST(test::error_of([&] { by_layer.require_full_attention(0, 8, "a sequence"); }) == "(no error)");
    BOOST_TEST(contains(test::error_of([&] { by_layer.require_full_attention(0, 9, "a sequence"); }), "layer 0 attends only to the latest 8"));
    BOOST_TEST(test::error_of([&] { by_layer.require_full_attention(1, 100, "a sequence"); }) == "(no error)");
}

BOOST_AUTO_TEST_CASE(rope_settings_qkov_does_not_apply_are_refused)
{
    for (const char* type : {"yarn", "longrope", "su"})
        BOOST_TEST(contains(config_error(llama_config({{"rope_scaling", {{"rope_type", type}, {"factor", 4.0}}}})),
                            "RoPE scaling \"" + std::string(type) + "\" is not modelled"));
    const auto dynamic = io::parse_model_config(llama_config({{"rope_scaling", {{"rope_type", "dynamic"}, {"factor", 2.0}}}}), "c");
    BOOST_TEST(dynamic.rope->scaling->type == "dynamic");
    BOOST_TEST((forward::rope_theta(*dynamic.rope) == forward::rope_theta(io::rope_config{rope_pairing::rotate_half, 32, 10000.0, std::nullopt})));
    BOOST_TEST(contains(config_error(llama_config({{"max_position_embeddings", nullptr}, {"rope_scaling", {{"rope_type", "dynamic"}, {"factor", 2.0}}}})),
                        "dynamic RoPE scaling without \"max_position_embeddings\""));
    // transformers 5 and Gemma 3 key RoPE by layer type: the one every layer uses is read (its base
    // was ignored, 10000 used for 1e6), different ones for different layers refused.
    const auto full = io::parse_model_config(llama_config({{"rope_parameters", {{"full_attention", {{"rope_theta", 1e6}, {"rope_type", "default"}}}}}}), "c");
    BOOST_TEST(full.rope->base == 1e6);
    BOOST_TEST(contains(config_error(llama_config({{"layer_types", {"sliding_attention", "full_attention"}},
                                                   {"sliding_window", 8},
                                                   {"rope_parameters", {{"full_attention", {{"rope_theta", 1e6}}}, {"sliding_attention", {{"rope_theta", 1e4}}}}}})),
                        "gives full-attention and sliding-window layers different RoPE settings"));
    const auto same = io::parse_model_config(llama_config({{"layer_types", {"sliding_attention", "full_attention"}},
                                                           {"sliding_window", 8},
                                                           {"rope_parameters", {{"full_attention", {{"rope_theta", 1e6}}}, {"sliding_attention", {{"rope_theta", 1e6}}}}}}),
                                             "c");
    BOOST_TEST(same.rope->base == 1e6);
}

BOOST_AUTO_TEST_CASE(tensors_outside_a_familys_readers_are_refused)
{
    const auto& llama = io::layout_of(io::model_family::llama);
    const auto& gpt2 = io::layout_of(io::model_family::gpt2);
    BOOST_TEST(io::known_tensor(llama, "model.layers.3.self_attn.q_proj.weight"));
    BOOST_TEST(io::known_tensor(llama, "layers.0.mlp.down_proj.weight"));
    BOOST_TEST(io::known_tensor(llama, "model.norm.weight"));
    BOOST_TEST(io::known_tensor(llama, "model.layers.0.self_attn.rotary_emb.inv_freq"));  // a buffer: recomputed from the config
    BOOST_TEST(!io::known_tensor(llama, "model.layers.0.self_attn.q_norm.weight"));
    BOOST_TEST(!io::known_tensor(llama, "model.layers.0.input_layernorm.bias"));  // an RMSNorm's bias would be read without it
    BOOST_TEST(!io::known_tensor(llama, "model.norm.bias"));
    BOOST_TEST(!io::known_tensor(llama, "model.layers.x.self_attn.q_proj.weight"));
    BOOST_TEST(!io::known_tensor(llama, "model.layers.0.pre_feedforward_layernorm.weight"));
    BOOST_TEST(io::known_tensor(gpt2, "transformer.h.11.attn.bias"));  // GPT-2's causal mask buffer
    BOOST_TEST(io::known_tensor(gpt2, "h.0.ln_1.bias"));
    BOOST_TEST(io::known_tensor(gpt2, "ln_f.bias"));
    BOOST_TEST(!io::known_tensor(gpt2, "h.0.ln_3.weight"));
    const auto refused = test::error_of([&] {
        io::refuse_unknown_tensors(llama, {"model.embed_tokens.weight", "model.layers.0.self_attn.k_norm.weight"}, "model.safetensors");
    });
    BOOST_TEST(contains(refused, "tensor 'model.layers.0.self_attn.k_norm.weight': not modelled for the llama layout: normalises the keys"));
}

BOOST_AUTO_TEST_CASE(docs_list_every_row_of_the_table)
{
    const std::string doc = source_file("docs/unmodelled.md");
    BOOST_REQUIRE(!doc.empty());
    for (const auto& a : io::unmodelled_architectures) BOOST_TEST(contains(doc, in_backquotes(a.model_type)), a.model_type);
    for (const auto& s : io::unmodelled_config_keys) BOOST_TEST(contains(doc, in_backquotes(s.key)), s.key);
    for (const auto& s : io::unmodelled_gguf_keys) BOOST_TEST(contains(doc, in_backquotes(s.key)), s.key);
    for (const auto& k : io::unmodelled_tensor_kinds) BOOST_TEST(contains(doc, in_backquotes(k.name_part)), k.name_part);
}

// The three models of the soundness report, built from a trained Llama by changing only what the
// config and the tensors say. Each certified a label its own attention contradicts; each is now
// refused before anything is computed, or (a window that does not bind) computed exactly.
BOOST_AUTO_TEST_CASE(the_reported_qwen3_gemma2_and_mistral_are_refused)
{
    const auto trained = test::shared_dir_or_skip("trained_models/llama_rope_induction");
    if (trained.empty()) return;
    const auto dir = test::scratch_directory("unmodelled");
    const auto scale_head_0_query = [](double factor) {
        return [factor](const std::string& name, const std::vector<std::size_t>& shape, std::vector<double>& values) {
            if (name == "model.layers.0.self_attn.q_proj.weight") test::scale_rows(values, shape[1], 0, 32, factor);
        };
    };
    // Qwen3: q_norm / k_norm (weights 1) and head 0.0's queries x 6.
    test::model_variant qwen3;
    qwen3.config_changes = {{"model_type", "qwen3"}, {"architectures", {"Qwen3ForCausalLM"}}};
    qwen3.edit = scale_head_0_query(6);
    for (int l = 0; l < 2; ++l)
        for (const char* part : {"q_norm", "k_norm"})
            qwen3.extra.push_back({"model.layers." + std::to_string(l) + ".self_attn." + part + ".weight", {32}, std::vector<float>(32, 1.0f)});
    test::write_model_variant(trained, dir / "qwen3", qwen3);
    const auto qwen3_error = test::error_of([&] { (void)qkov::runs::open_model(dir / "qwen3"); });
    BOOST_TEST(contains(qwen3_error, "_norm.weight': not modelled for the llama layout"), qwen3_error);
    BOOST_TEST(contains(qwen3_error, "QK-norm"));
    // Gemma 2: Gemma-2-27B's query_pre_attn_scalar ratio (36 for a head of 32), soft-capping 50,
    // queries x 0.11. Refused as an architecture, and the same keys on a Llama by name.
    test::model_variant gemma2;
    gemma2.config_changes = {{"model_type", "gemma2"}, {"query_pre_attn_scalar", 36}, {"attn_logit_softcapping", 50.0}};
    gemma2.edit = scale_head_0_query(0.11);
    test::write_model_variant(trained, dir / "gemma2", gemma2);
    BOOST_TEST(contains(test::error_of([&] { (void)qkov::runs::open_model(dir / "gemma2"); }), "model_type \"gemma2\" is not modelled"));
    gemma2.config_changes["model_type"] = "llama";
    test::write_model_variant(trained, dir / "llama-softcapped", gemma2);
    BOOST_TEST(contains(test::error_of([&] { (void)qkov::runs::open_model(dir / "llama-softcapped"); }), "\"attn_logit_softcapping\" is 50.0"));
    // Mistral with a window of 8: the scan's proxy sequence (51 positions) and detect's sequences
    // (101) are longer, so both are refused; the forward pass runs what fits the window.
    test::model_variant mistral;
    mistral.config_changes = {{"model_type", "mistral"}, {"sliding_window", 8}};
    test::write_model_variant(trained, dir / "mistral-8", mistral);
    const auto windowed = qkov::runs::open_model(dir / "mistral-8");
    BOOST_TEST(contains(test::error_of([&] { (void)qkov::runs::scan_model(windowed); }), "the scan's proxy sequence has 51 positions, but layer 0 attends only to the latest 8"));
    const forward::decoder<double> pass(windowed);
    const std::vector<forward::token_id> eight{1, 5, 6, 7, 8, 9, 10, 11}, nine{1, 5, 6, 7, 8, 9, 10, 11, 12};
    BOOST_TEST(test::error_of([&] { (void)pass.residual_stream(eight); }) == "(no error)");
    BOOST_TEST(contains(test::error_of([&] { (void)pass.residual_stream(nine); }), "a sequence has 9 positions, but layer 0 attends only to the latest 8"));
    // A window that never binds (Mistral-7B-v0.1's 4,096) changes nothing: the same labels and
    // certificates as the Llama itself.
    mistral.config_changes["sliding_window"] = 4096;
    test::write_model_variant(trained, dir / "mistral-4096", mistral);
    const auto wide = qkov::runs::scan_model(qkov::runs::open_model(dir / "mistral-4096"));
    const auto plain = qkov::runs::scan_model(qkov::runs::open_model(trained));
    BOOST_REQUIRE(wide.heads.size() == plain.heads.size());
    for (std::size_t i = 0; i < wide.heads.size(); ++i) {
        BOOST_TEST(wide.heads[i].labels.labels == plain.heads[i].labels.labels);
        BOOST_TEST(wide.heads[i].labels.certified == plain.heads[i].labels.certified);
    }
    std::filesystem::remove_all(dir);
}
