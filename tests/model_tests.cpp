// The head model against fixtures/models/reference.json (values computed by numpy from the same
// files), the row/column conventions, and the config and tensor errors.
#define BOOST_TEST_MODULE model
#include <boost/test/unit_test.hpp>

#include <complex>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <xtensor-blas/xlinalg.hpp>
#include <xtensor/xmath.hpp>

#include "qkov/model/head_attention.hpp"
#include "qkov/io/safetensors_index.hpp"
#include "model_runs.hpp"
#include "error_text.hpp"
#include "shared_dir.hpp"

namespace fs = std::filesystem;
using namespace qkov::model;

namespace {

std::vector<double> singular_values(const matrix& m)
{
    const auto s = std::get<1>(xt::linalg::svd(m, false, true));
    return {s.begin(), s.end()};
}

std::size_t numpy_rank(const std::vector<double>& s, std::size_t D, std::size_t d)
{
    std::size_t r = 0;
    for (double v : s) r += v > static_cast<double>(std::max(D, d)) * std::numeric_limits<double>::epsilon() * s.front();
    return r;
}

double relative_gap(double a, double b) { return std::abs(a - b) / std::max(std::abs(b), 1e-300); }

nlohmann::json reference()
{
    std::ifstream in(qkov::test::shared_dir() / "fixtures/models/reference.json");
    return nlohmann::json::parse(in);
}

/// The attention check's input: x_i[j] = 4 sin(1.3 i + 0.7 j + 0.1 i j + 0.5), 20 positions.
matrix probe(std::size_t D)
{
    matrix x = xt::empty<double>({std::size_t{20}, D});
    for (std::size_t i = 0; i < 20; ++i)
        for (std::size_t j = 0; j < D; ++j) {
            const double a = static_cast<double>(i), b = static_cast<double>(j);
            x(i, j) = 4 * std::sin(1.3 * a + 0.7 * b + 0.1 * a * b + 0.5);
        }
    return x;
}

void check_fixture(const std::string& name)
{
    const auto dir = qkov::test::shared_dir_or_skip("fixtures/models/" + name);
    if (dir.empty()) return;
    const auto ref = reference()["models"][name];
    const auto model = qkov::runs::open_model(dir);
    const auto& c = model.config();
    BOOST_TEST(c.hidden_size == ref["geometry"]["D"].get<std::size_t>());
    BOOST_TEST(c.heads == ref["geometry"]["H"].get<std::size_t>());
    BOOST_TEST(c.kv_heads == ref["geometry"]["Hkv"].get<std::size_t>());
    BOOST_TEST(c.head_dim == ref["geometry"]["d"].get<std::size_t>());
    BOOST_TEST(c.layers == ref["geometry"]["L"].get<std::size_t>());
    if (c.rope) {
        BOOST_TEST(c.rope->rotary_dim == ref["geometry"]["rot"].get<std::size_t>());
        BOOST_TEST(c.rope->base == ref["geometry"]["theta"].get<double>());
    }
    const auto W_E = model.embedding();
    const auto W_U = model.unembedding();
    BOOST_REQUIRE(W_E && W_U);
    std::size_t checked = 0;
    for (std::size_t l = 0; l < c.layers; ++l) {
        const auto lw = model.layer(l);
        for (const auto& h : lw.heads) {
            const auto& r = *std::find_if(ref["heads"].begin(), ref["heads"].end(),
                                          [&](const auto& e) { return e["layer"] == l && e["head"] == h.head; });
            BOOST_TEST_CONTEXT(name << " layer " << l << " head " << h.head)
            {
                const auto row = to_row_convention(h);
                BOOST_TEST(h.kv_head == r["kv_head"].get<std::size_t>());
                BOOST_TEST(relative_gap(xt::linalg::norm(row.W_Q), r["frob"]["WQ"]) < 1e-12);
                BOOST_TEST(relative_gap(xt::linalg::norm(row.W_K), r["frob"]["WK"]) < 1e-12);
                BOOST_TEST(relative_gap(xt::linalg::norm(row.W_V), r["frob"]["WV"]) < 1e-12);
                BOOST_TEST(relative_gap(xt::linalg::norm(row.W_O), r["frob"]["WO"]) < 1e-12);
                const auto sq = singular_values(row.W_Q), sk = singular_values(row.W_K);
                BOOST_TEST(numpy_rank(sq, c.hidden_size, c.head_dim) == r["rank_q"].get<std::size_t>());
                BOOST_TEST(numpy_rank(sk, c.hidden_size, c.head_dim) == r["rank_k"].get<std::size_t>());
                BOOST_TEST(relative_gap(sq.front() / sq.back(), r["cond_q"]) < 1e-9);
                BOOST_TEST(relative_gap(sk.front() / sk.back(), r["cond_k"]) < 1e-9);
                const auto qk = singular_values(xt::linalg::dot(row.W_Q, xt::transpose(row.W_K)));
                const auto ov = singular_values(xt::linalg::dot(row.W_V, row.W_O));
                for (std::size_t i = 0; i < 5; ++i) {
                    BOOST_TEST(relative_gap(qk[i], r["qk_top5_sv"][i]) < 1e-9);
                    BOOST_TEST(relative_gap(ov[i], r["ov_top5_sv"][i]) < 1e-9);
                }
                // W_O W_U W_E W_V in the row convention: W_U (D x V) is the transpose of the stored V x D.
                const matrix core = xt::linalg::dot(xt::linalg::dot(row.W_O, xt::transpose(*W_U)), xt::linalg::dot(*W_E, row.W_V));
                const auto eig = xt::linalg::eigvals(core);
                double re = 0, mag = 0;
                for (const auto& z : eig) re += z.real(), mag += std::abs(z);
                BOOST_TEST(std::abs(re / mag - r["ov_copying_score"].get<double>()) < 1e-9);
                ++checked;
            }
        }
        // The attention check: biases, RoPE and the output bias included.
        const auto& a = *std::find_if(ref["attention_check"].begin(), ref["attention_check"].end(), [&](const auto& e) { return e["layer"] == l; });
        const matrix x = probe(c.hidden_size);
        vector out = lw.b_o.size() ? lw.b_o : vector(xt::zeros<double>({c.hidden_size}));
        double worst = 0;
        for (const auto& h : lw.heads) {
            const auto p = last_query_probabilities(x, h, c);
            for (std::size_t m = 0; m < p.size(); ++m) worst = std::max(worst, std::abs(p[m] - a["last_query_probs"][h.head][m].get<double>()));
            out += last_position_output(x, h, p);
        }
        for (std::size_t j = 0; j < c.hidden_size; ++j) worst = std::max(worst, std::abs(out(j) - a["attn_out_last"][j].get<double>()));
        BOOST_TEST_CONTEXT(name << " layer " << l) { BOOST_TEST(worst < 1e-6); }
    }
    BOOST_TEST(checked == ref["heads"].size());
}

} // namespace

BOOST_AUTO_TEST_CASE(gpt2_fixture_matches_reference) { check_fixture("gpt2"); }
BOOST_AUTO_TEST_CASE(gpt_neox_fixture_matches_reference) { check_fixture("gpt_neox"); }
BOOST_AUTO_TEST_CASE(llama_fixture_matches_reference) { check_fixture("llama"); }
BOOST_AUTO_TEST_CASE(llama_bf16_fixture_matches_reference) { check_fixture("llama_bf16"); }

BOOST_AUTO_TEST_CASE(row_and_column_conventions_convert_both_ways)
{
    head_weights h;
    h.layer = 1, h.head = 2, h.kv_head = 1;
    h.w_q = matrix{{1, 2, 3}, {4, 5, 6}};  // d = 2, D = 3
    h.w_k = matrix{{7, 8, 9}, {1, 0, 1}};
    h.w_v = matrix{{2, 0, 1}, {0, 3, 0}};
    h.w_o = matrix{{1, 0}, {0, 1}, {5, 5}};  // D x d
    h.b_q = vector{0.5, -0.5};
    const auto row = to_row_convention(h);
    BOOST_TEST(row.W_Q.shape(0) == 3u);
    BOOST_TEST(row.W_Q(2, 1) == 6.0);  // q_i = sum_j W_q(i, j) x_j = sum_j x_j W_Q(j, i)
    BOOST_TEST(row.W_O(1, 2) == 5.0);
    // x W_Q (row) equals W_q x (column) on one vector.
    const vector x{1.0, -2.0, 0.25};
    const vector col = xt::linalg::dot(h.w_q, x), rowv = xt::linalg::dot(x, row.W_Q);
    BOOST_TEST(xt::allclose(col, rowv));
    const auto back = from_row_convention(row, 1, 2, 1);
    BOOST_TEST(back.w_q == h.w_q);
    BOOST_TEST(back.w_o == h.w_o);
    BOOST_TEST(back.b_q == h.b_q);
}

BOOST_AUTO_TEST_CASE(gqa_heads_share_their_kv_head)
{
    const auto dir = qkov::test::shared_dir_or_skip("fixtures/models/llama");
    if (dir.empty()) return;
    const auto lw = qkov::runs::open_model(dir).layer(1);
    BOOST_TEST(lw.heads[2].kv_head == 1u);
    BOOST_TEST(lw.heads[3].kv_head == 1u);
    BOOST_TEST(lw.heads[2].w_k == lw.heads[3].w_k);
    BOOST_TEST(!(lw.heads[1].w_k == lw.heads[2].w_k));
}

namespace {

std::string config_error(const std::string& text)
{
    try {
        (void)qkov::io::parse_model_config(nlohmann::json::parse(text), "config.json");
    } catch (const qkov::io::model_file_error& e) {
        return e.what();
    }
    BOOST_FAIL("no error for " + text);
    return {};
}

using qkov::test::contains;

fs::path scratch_dir(const std::string& name)
{
    const auto dir = fs::temp_directory_path() / ("qkov-model-tests-" + std::to_string(::getpid())) / name;
    fs::create_directories(dir);
    return dir;
}

/// A safetensors file of F32 tensors: the header, then the values.
void write_safetensors(const fs::path& file, const nlohmann::json& header, const std::vector<float>& data)
{
    const std::string h = header.dump();
    std::ofstream out(file, std::ios::binary);
    const std::uint64_t n = h.size();
    out.write(reinterpret_cast<const char*>(&n), 8);
    out << h;
    out.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(data.size() * 4));
}

/// A one-layer llama checkpoint (D = 4, H = Hkv = 1, d = 4) with q_proj[1][2] = `poison`, or
/// without the tensor named `drop`.
fs::path tiny_llama(const std::string& name, float poison, const std::string& drop = "")
{
    const auto dir = scratch_dir(name);
    std::ofstream(dir / "config.json") << R"({"model_type":"llama","hidden_size":4,"num_hidden_layers":1,"num_attention_heads":1,"vocab_size":2})";
    const std::vector<std::string> names = {"model.layers.0.self_attn.q_proj.weight", "model.layers.0.self_attn.k_proj.weight",
                                            "model.layers.0.self_attn.v_proj.weight", "model.layers.0.self_attn.o_proj.weight"};
    nlohmann::json header = nlohmann::json::object();
    std::vector<float> data;
    for (const auto& n : names) {
        if (n.find(drop) != std::string::npos && !drop.empty()) continue;
        header[n] = {{"dtype", "F32"}, {"shape", {4, 4}}, {"data_offsets", {data.size() * 4, data.size() * 4 + 64}}};
        for (int i = 0; i < 16; ++i) data.push_back(i == 6 && n.find("q_proj") != std::string::npos ? poison : 0.01f * static_cast<float>(i));
    }
    header["model.layers.0.input_layernorm.weight"] = {{"dtype", "F32"}, {"shape", {4}}, {"data_offsets", {data.size() * 4, data.size() * 4 + 16}}};
    for (int i = 0; i < 4; ++i) data.push_back(1.0f);
    write_safetensors(dir / "model.safetensors", header, data);
    return dir;
}

/// The error opening `dir` (and reading its layer 0) throws.
std::string layer_error(const fs::path& dir)
{
    try {
        (void)qkov::runs::open_model(dir).layer(0);
    } catch (const qkov::io::model_file_error& e) {
        return e.what();
    }
    BOOST_FAIL("no error for " + dir.string());
    return {};
}

} // namespace

BOOST_AUTO_TEST_CASE(tiny_llama_loads_when_sound)
{
    const auto lw = qkov::runs::open_model(tiny_llama("sound", 0.5f)).layer(0);
    BOOST_TEST(lw.heads.size() == 1u);
    BOOST_TEST(lw.heads[0].w_q(1, 2) == 0.5);
}

BOOST_AUTO_TEST_CASE(nan_in_an_attention_weight_names_tensor_and_index)
{
    const auto e = layer_error(tiny_llama("nan", std::numeric_limits<float>::quiet_NaN()));
    BOOST_TEST(contains(e, "tensor 'model.layers.0.self_attn.q_proj.weight': NaN at index [1, 2]"));
    BOOST_TEST(contains(layer_error(tiny_llama("inf", std::numeric_limits<float>::infinity())), "infinite value at index [1, 2]"));
}

// GPT-2 heads are read block by block (head 0's q, k, v columns before head 1's), not in storage
// order; the error must still name the tensor's first bad element in storage order.
BOOST_AUTO_TEST_CASE(nan_found_by_a_later_block_is_reported_at_the_first_bad_index)
{
    // D = 4, H = 2, d = 2: c_attn [4, 12] with columns [q0 q1 | k0 k1 | v0 v1], two columns each.
    const auto dir = scratch_dir("gpt2-nan-order");
    std::ofstream(dir / "config.json") << R"({"model_type":"gpt2","n_embd":4,"n_head":2,"n_layer":1,"vocab_size":2})";
    std::vector<float> data(4 * 12 + 4 * 4 + 4 + 4, 0.25f);
    data[2 * 12 + 8] = std::numeric_limits<float>::quiet_NaN();  // [2, 8]: head 0's v, read first
    data[1 * 12 + 2] = std::numeric_limits<float>::infinity();  // [1, 2]: head 1's q, first in storage order
    nlohmann::json header = {{"h.0.attn.c_attn.weight", {{"dtype", "F32"}, {"shape", {4, 12}}, {"data_offsets", {0, 192}}}},
                             {"h.0.attn.c_proj.weight", {{"dtype", "F32"}, {"shape", {4, 4}}, {"data_offsets", {192, 256}}}},
                             {"h.0.ln_1.weight", {{"dtype", "F32"}, {"shape", {4}}, {"data_offsets", {256, 272}}}},
                             {"h.0.ln_1.bias", {{"dtype", "F32"}, {"shape", {4}}, {"data_offsets", {272, 288}}}}};
    write_safetensors(dir / "model.safetensors", header, data);
    const auto e = layer_error(dir);
    BOOST_TEST(contains(e, "tensor 'h.0.attn.c_attn.weight': infinite value at index [1, 2]"), e);
}

BOOST_AUTO_TEST_CASE(missing_tensor_the_architecture_needs)
{
    BOOST_TEST(contains(layer_error(tiny_llama("missing", 0.5f, "v_proj")), "self_attn.v_proj.weight': missing, and the llama architecture needs it"));
}

BOOST_AUTO_TEST_CASE(config_missing)
{
    const auto dir = tiny_llama("noconfig", 0.5f);
    fs::remove(dir / "config.json");
    BOOST_TEST(contains(layer_error(dir), "config.json is missing"));
    // A config.json that is a symlink loop is there but cannot be read: said so, not "missing".
    fs::create_symlink("config.json", dir / "config.json");
    const auto loop = layer_error(dir);
    BOOST_TEST(contains(loop, "config.json: cannot be read: Too many levels of symbolic links"), loop);
    BOOST_TEST(!contains(loop, "missing"), loop);
}

BOOST_AUTO_TEST_CASE(config_not_json)
{
    const auto dir = tiny_llama("badconfig", 0.5f);
    std::ofstream(dir / "config.json") << "{ \"model_type\": ";
    BOOST_TEST(contains(layer_error(dir), "config.json: not valid JSON"));
}

BOOST_AUTO_TEST_CASE(config_unknown_architecture)
{
    BOOST_TEST(contains(config_error(R"({"model_type":"mamba","hidden_size":4})"), "unknown architecture (model_type \"mamba\""));
}

BOOST_AUTO_TEST_CASE(config_heads_not_dividing_the_width)
{
    BOOST_TEST(contains(config_error(R"({"model_type":"llama","hidden_size":10,"num_hidden_layers":1,"num_attention_heads":3,"vocab_size":2})"),
                        "3 heads do not divide the width 10"));
}

BOOST_AUTO_TEST_CASE(config_negative_sizes)
{
    BOOST_TEST(contains(config_error(R"({"model_type":"gpt2","n_embd":-64,"n_layer":1,"n_head":1,"vocab_size":2})"),
                        "\"n_embd\" must be positive, not -64"));
}

BOOST_AUTO_TEST_CASE(config_both_transformers_spellings)
{
    const auto v5 = qkov::io::parse_model_config(
        nlohmann::json::parse(R"({"model_type":"gpt_neox","hidden_size":64,"num_hidden_layers":1,"num_attention_heads":4,"vocab_size":2,
                                  "rope_parameters":{"rope_theta":500.0,"rope_type":"default","partial_rotary_factor":0.25}})"),
        "v5");
    const auto v4 = qkov::io::parse_model_config(
        nlohmann::json::parse(R"({"model_type":"gpt_neox","hidden_size":64,"num_hidden_layers":1,"num_attention_heads":4,"vocab_size":2,
                                  "rotary_emb_base":500.0,"rotary_pct":0.25})"),
        "v4");
    BOOST_TEST(v5.rope->rotary_dim == 4u);
    BOOST_TEST(v4.rope->rotary_dim == 4u);
    BOOST_TEST(v5.rope->base == 500.0);
    BOOST_TEST(v4.rope->base == 500.0);
    const auto scaled = qkov::io::parse_model_config(
        nlohmann::json::parse(R"({"model_type":"llama","hidden_size":64,"num_hidden_layers":1,"num_attention_heads":4,"vocab_size":2,
                                  "rope_theta":500000.0,"rope_scaling":{"rope_type":"llama3","factor":8.0}})"),
        "llama3");
    BOOST_REQUIRE(scaled.rope->scaling.has_value());
    BOOST_TEST(scaled.rope->scaling->type == "llama3");
    BOOST_TEST(scaled.rope->scaling->factor == 8.0);
    BOOST_TEST(scaled.rope->base == 500000.0);
}

namespace {

/// A two-layer SmolLM3 config.json with `extra` merged in (null values remove a key).
nlohmann::json smollm3_config(const nlohmann::json& extra = nlohmann::json::object())
{
    nlohmann::json j = {{"model_type", "smollm3"}, {"architectures", {"SmolLM3ForCausalLM"}}, {"hidden_size", 8}, {"num_hidden_layers", 2},
                        {"num_attention_heads", 2}, {"num_key_value_heads", 1}, {"vocab_size", 16}, {"rope_theta", 10000.0},
                        {"no_rope_layers", {1, 0}}};
    j.merge_patch(extra);
    return j;
}

} // namespace

BOOST_AUTO_TEST_CASE(smollm3_no_rope_layers_give_each_layer_its_rope)
{
    const auto c = qkov::io::parse_model_config(smollm3_config(), "config.json");
    BOOST_TEST(c.architecture == "SmolLM3ForCausalLM");
    BOOST_TEST((c.family == qkov::io::model_family::llama));
    BOOST_TEST((c.norm == qkov::io::norm_kind::rms_norm));
    BOOST_TEST(c.activation == "silu");
    BOOST_TEST((c.rope_layers == std::vector<bool>{true, false}));
    BOOST_TEST(c.any_nope_layer());
    BOOST_REQUIRE(c.rope_at(0).has_value());
    BOOST_TEST((c.rope_at(0)->pairing == qkov::rope_pairing::rotate_half));
    BOOST_TEST(c.rope_at(0)->rotary_dim == 4u);
    BOOST_TEST(c.rope_at(0)->base == 10000.0);
    BOOST_TEST(!c.rope_at(1).has_value());
    BOOST_CHECK_THROW((void)c.rope_at(2), std::out_of_range);
}

BOOST_AUTO_TEST_CASE(smollm3_without_a_list_follows_the_interval)
{
    // transformers' default: layer l is NoPE when (l + 1) % no_rope_layer_interval == 0, interval 4.
    const auto every_fourth = qkov::io::parse_model_config(smollm3_config({{"num_hidden_layers", 8}, {"no_rope_layers", nullptr}}), "config.json");
    BOOST_TEST((every_fourth.rope_layers == std::vector<bool>{true, true, true, false, true, true, true, false}));
    const auto every_second = qkov::io::parse_model_config(
        smollm3_config({{"num_hidden_layers", 4}, {"no_rope_layers", nullptr}, {"no_rope_layer_interval", 2}}), "config.json");
    BOOST_TEST((every_second.rope_layers == std::vector<bool>{true, false, true, false}));
    // SmolLM3Config's default theta, not Llama's, when the file names none.
    BOOST_TEST(qkov::io::parse_model_config(smollm3_config({{"rope_theta", nullptr}}), "config.json").rope->base == 2000000.0);
}

BOOST_AUTO_TEST_CASE(models_without_a_schedule_rotate_every_layer)
{
    const auto c = qkov::io::parse_model_config(
        nlohmann::json::parse(R"({"model_type":"llama","hidden_size":8,"num_hidden_layers":3,"num_attention_heads":2,"vocab_size":4,
                                  "layer_types":["full_attention","full_attention","full_attention"],"use_sliding_window":false})"),
        "config.json");
    BOOST_TEST(c.rope_layers.empty());
    BOOST_TEST(!c.any_nope_layer());
    BOOST_TEST(c.rope_at(2).has_value());
    BOOST_TEST(c.rope_at(2)->base == c.rope->base);
    const auto gpt2 =
        qkov::io::parse_model_config(nlohmann::json::parse(R"({"model_type":"gpt2","n_embd":8,"n_layer":2,"n_head":2,"vocab_size":4})"), "config.json");
    BOOST_TEST(!gpt2.rope_at(0).has_value());
}

BOOST_AUTO_TEST_CASE(bad_no_rope_layers_are_refused_by_name)
{
    BOOST_TEST(contains(config_error(smollm3_config({{"no_rope_layers", {1, 0, 1}}}).dump()),
                        "\"no_rope_layers\" must be a list of one 0/1 flag per layer (2 layers), not [1,0,1]"));
    BOOST_TEST(contains(config_error(smollm3_config({{"no_rope_layers", 1}}).dump()), "\"no_rope_layers\" must be a list"));
    BOOST_TEST(contains(config_error(smollm3_config({{"no_rope_layers", {1, 2}}}).dump()), "\"no_rope_layers\" entry 1 is 2, not 0 (NoPE) or 1 (RoPE)"));
    BOOST_TEST(contains(config_error(smollm3_config({{"no_rope_layers", {"1", 0}}}).dump()), "\"no_rope_layers\" entry 0 is \"1\""));
    BOOST_TEST(contains(config_error(smollm3_config({{"no_rope_layers", {true, false}}}).dump()), "\"no_rope_layers\" entry 0 is true"));
    BOOST_TEST(contains(config_error(smollm3_config({{"no_rope_layers", nullptr}, {"no_rope_layer_interval", 0}}).dump()),
                        "\"no_rope_layer_interval\" must be positive"));
}

BOOST_AUTO_TEST_CASE(unimplemented_layer_schedules_are_refused_by_name)
{
    BOOST_TEST(contains(config_error(smollm3_config({{"layer_types", {"full_attention", "chunked_attention"}}}).dump()),
                        "\"layer_types\" gives layer 1 the attention type \"chunked_attention\""));
    BOOST_TEST(contains(config_error(smollm3_config({{"layer_types", {"full_attention"}}}).dump()), "\"layer_types\" must be a list of one attention type per layer"));
    // A sliding layer needs its window.
    BOOST_TEST(contains(config_error(smollm3_config({{"layer_types", {"full_attention", "sliding_attention"}}}).dump()), "config lacks \"sliding_window\""));
    BOOST_TEST(contains(config_error(smollm3_config({{"model_type", "llama4"}}).dump()), "model_type \"llama4\" is not modelled"));
    BOOST_TEST(contains(config_error(smollm3_config({{"model_type", "llama4_text"}}).dump()), "model_type \"llama4\" is not modelled"));
    BOOST_TEST(contains(config_error(smollm3_config({{"model_type", "cohere2"}}).dump()), "model_type \"cohere2\" is not modelled"));
    BOOST_TEST(contains(config_error(smollm3_config({{"model_type", "llama"}, {"attn_temperature_tuning", true}}).dump()), "\"attn_temperature_tuning\" is true"));
    BOOST_TEST(contains(config_error(smollm3_config({{"model_type", "llama"}, {"interleave_moe_layer_step", 1}}).dump()),
                        "\"interleave_moe_layer_step\" is 1"));
}

BOOST_AUTO_TEST_CASE(gpt2_small_attention_loads_all_144_heads_and_reports_the_missing_wte)
{
    const auto dir = qkov::test::shared_dir_or_skip("real_models/gpt2-small-attention");
    if (dir.empty()) return;
    const auto model = qkov::runs::open_model(dir);
    BOOST_TEST(model.config().hidden_size == 768u);
    std::size_t heads = 0;
    for (std::size_t l = 0; l < model.config().layers; ++l) {
        const auto lw = model.layer(l);
        for (const auto& h : lw.heads) {
            BOOST_TEST(h.w_q.shape(0) == 64u);
            BOOST_TEST(h.w_o.shape(0) == 768u);
            ++heads;
        }
    }
    BOOST_TEST(heads == 144u);
    BOOST_TEST(model.embedding_status() == "absent");
    BOOST_TEST(model.unembedding_status() == "absent (tied to the absent embedding)");
    BOOST_TEST((model.unembedding_presence() == qkov::model::attention_model::presence::tied_to_absent));
    BOOST_TEST(!model.embedding().has_value());
    BOOST_TEST(!model.unembedding().has_value());
}

// Wrong types in the fields qkov reads were read as a default: a string "true" as false (the
// copying scores dropped), NeoX's "false" as true, a string rope_scaling ignored; a rotary
// fraction of 0.01 gave rotary_dim 0; a base of 1e-300 made angles near 1e225.
BOOST_AUTO_TEST_CASE(config_fields_of_the_wrong_type_or_range_are_named)
{
    const std::string llama = R"({"model_type":"llama","hidden_size":64,"num_hidden_layers":1,"num_attention_heads":4,"vocab_size":2)";
    const std::string neox = R"({"model_type":"gpt_neox","hidden_size":64,"num_hidden_layers":1,"num_attention_heads":4,"vocab_size":2)";
    BOOST_TEST(contains(config_error(llama + R"(,"tie_word_embeddings":"true"})"), "\"tie_word_embeddings\" is not true or false (\"true\")"));
    BOOST_TEST(contains(config_error(neox + R"(,"use_parallel_residual":"false"})"), "\"use_parallel_residual\" is not true or false (\"false\")"));
    BOOST_TEST(contains(config_error(llama + R"(,"rope_scaling":"linear"})"), "\"rope_scaling\" is not an object (\"linear\")"));
    BOOST_TEST(contains(config_error(neox + R"(,"partial_rotary_factor":0.01})"), "the rotary dimension 0 rotates no pair"));
    BOOST_TEST(contains(config_error(llama + R"(,"rope_theta":1e-300})"), "the RoPE base 1e-300 is not above 1"));
    // head_dim 16 x 0.3 = 4.8: int() gives 4, rotated; 16 x 0.35 = 5.6 gives 5, odd: refused, never rounded to 4.
    BOOST_TEST(contains(config_error(neox + R"(,"partial_rotary_factor":0.35})"), "the rotary dimension 5 is odd: RoPE rotates pairs"));
    BOOST_TEST(contains(config_error(neox + R"(,"partial_rotary_factor":-0.5})"), "\"partial_rotary_factor\" must be a positive finite number, not -0.5"));
    BOOST_TEST(contains(config_error(neox + R"(,"partial_rotary_factor":1.5})"), "the rotary fraction must be in (0, 1]"));
}

// nlohmann::json keeps the last of two equal keys: "num_hidden_layers" 2 then 1 read as 1.
BOOST_AUTO_TEST_CASE(config_with_a_repeated_key_is_refused)
{
    const auto dir = tiny_llama("repeated-key", 0.5f);
    std::ofstream(dir / "config.json")
        << R"({"model_type":"llama","hidden_size":4,"num_hidden_layers":2,"num_attention_heads":1,"vocab_size":2,"num_hidden_layers":1})";
    BOOST_TEST(contains(layer_error(dir), "the key \"num_hidden_layers\" appears twice in one object"));
}

// The config's sizes are checked against the tensors before anything is sized by them: a width of
// 20000 over a 4-wide file once cost 3.1 GB before the shape error, 2^40 layers ran on unbounded.
BOOST_AUTO_TEST_CASE(config_sizes_beyond_the_tensors_are_refused_when_the_model_opens)
{
    const auto dir = tiny_llama("wide", 0.5f);
    const auto open_error = [&](const std::string& config) {
        std::ofstream(dir / "config.json", std::ios::trunc) << config;
        return qkov::test::error_of([&] { (void)qkov::runs::open_model(dir); });
    };
    BOOST_TEST(contains(open_error(R"({"model_type":"llama","hidden_size":20000,"num_hidden_layers":1,"num_attention_heads":1,"vocab_size":2})"),
                        "self_attn.o_proj.weight': shape [4, 4], expected [20000, 20000]"));
    BOOST_TEST(contains(open_error(R"({"model_type":"llama","hidden_size":4,"num_hidden_layers":1099511627776,"num_attention_heads":1,"vocab_size":2})"),
                        "the config states 1099511627776 layers, but tensor 'model.layers.1099511627775.self_attn.o_proj.weight' of the last of them is missing"));
    BOOST_TEST(open_error(R"({"model_type":"llama","hidden_size":4,"num_hidden_layers":1,"num_attention_heads":1,"vocab_size":2})") == "(no error)");
    // Without any output projection nothing bounds the width: refused at once, not when the scan
    // reaches layer 0 after sizing D x D.
    BOOST_TEST(contains(qkov::test::error_of([&] { (void)qkov::runs::open_model(tiny_llama("no-o-proj", 0.5f, "o_proj")); }),
                        "self_attn.o_proj.weight': missing, and the llama architecture needs it"));
}

// transformers reads model.safetensors when a directory also holds an index; so does qkov now.
// A shard name with a NUL was cut at the NUL and named another file.
BOOST_AUTO_TEST_CASE(single_file_before_the_index_and_no_nul_in_shard_names)
{
    const auto dir = tiny_llama("both", 0.5f);
    std::ofstream(dir / "model.safetensors.index.json") << R"({"weight_map":{"model.layers.0.self_attn.q_proj.weight":"missing.safetensors"}})";
    BOOST_TEST(qkov::runs::open_model(dir).source().format() == "safetensors");
    fs::remove(dir / "model.safetensors.index.json");
    std::ofstream(dir / "model.safetensors.index.json") << R"({"weight_map":{"model.layers.0.self_attn.q_proj.weight":"model.safetensors\u0000x"}})";
    BOOST_TEST(contains(qkov::test::error_of([&] { (void)qkov::io::safetensors_index(dir / "model.safetensors.index.json"); }), "is not a plain file name"));
    std::ofstream(dir / "model.safetensors.index.json", std::ios::trunc)
        << R"({"weight_map":{"model.layers.0.self_attn.q_proj.weight":"model.safetensors","model.layers.0.self_attn.q_proj.weight":"other.safetensors"}})";
    BOOST_TEST(contains(qkov::test::error_of([&] { (void)qkov::io::safetensors_index(dir / "model.safetensors.index.json"); }),
                        "the key \"model.layers.0.self_attn.q_proj.weight\" appears twice"));
}
