// The forward pass (include/qkov/forward) against the fixtures' reference attention, against the
// text llama2.c's authors published for stories260K, and across the three files of that model;
// and the llama2.c readers (checkpoint and tokenizer) on damaged inputs.
#define BOOST_TEST_MODULE forward
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "qkov/forward/forward_pass.hpp"
#include "qkov/forward/greedy_decoding.hpp"
#include "qkov/forward/head_detectors.hpp"
#include "qkov/forward/rope_schedule.hpp"
#include "qkov/io/llama2c_checkpoint.hpp"
#include "qkov/io/llama2c_tokenizer.hpp"
#include "qkov/io/q8_0_error.hpp"
#include "qkov/io/open_checkpoint.hpp"
#include "model_runs.hpp"
#include "error_text.hpp"
#include "shared_dir.hpp"
#include "tiny_checkpoint.hpp"

namespace fs = std::filesystem;
using namespace qkov;
using forward::token_id;

namespace {

using test::contains;
using test::error_of;

/// The attention check's input: x_i[j] = 4 sin(1.3 i + 0.7 j + 0.1 i j + 0.5), 20 positions.
template <class T>
forward::tensor2<T> probe(std::size_t D)
{
    forward::tensor2<T> x = forward::tensor2<T>::from_shape({20, D});
    for (std::size_t i = 0; i < 20; ++i)
        for (std::size_t j = 0; j < D; ++j)
            x(i, j) = static_cast<T>(4 * std::sin(1.3 * double(i) + 0.7 * double(j) + 0.1 * double(i) * double(j) + 0.5));
    return x;
}

/// The largest difference, over every layer, between the pass's attention block on the probe and
/// reference.json's last-query probabilities and block output; none when the fixtures are absent
/// (a test then checks nothing and its suite is reported skipped, shared_dir.hpp).
template <class T>
std::optional<double> attention_check_error(const std::string& name)
{
    const auto dir = test::shared_dir_or_skip("fixtures/models");
    if (dir.empty()) return std::nullopt;
    const auto reference = nlohmann::json::parse(std::ifstream(dir / "reference.json"))["models"][name];
    const auto model = qkov::runs::open_model(dir / name);
    const forward::decoder<T> pass(model);
    double worst = 0;
    std::size_t layers_checked = 0;
    for (const auto& check : reference["attention_check"]) {
        const std::size_t layer = check["layer"].get<std::size_t>();
        const auto x = probe<T>(model.config().hidden_size);
        std::size_t heads_seen = 0;
        const auto out = pass.attention(layer, x, [&](std::size_t l, std::size_t h, const forward::tensor2<T>& p) {
            BOOST_TEST(l == layer);
            for (std::size_t m = 0; m < 20; ++m) worst = std::max(worst, std::abs(double(p(19, m)) - check["last_query_probs"][h][m].get<double>()));
            ++heads_seen;
        });
        BOOST_TEST(heads_seen == model.config().heads);
        for (std::size_t j = 0; j < model.config().hidden_size; ++j) worst = std::max(worst, std::abs(double(out(19, j)) - check["attn_out_last"][j].get<double>()));
        ++layers_checked;
    }
    BOOST_TEST(layers_checked == model.config().layers);
    return worst;
}

fs::path stories(const std::string& file) { return test::shared_dir_or_skip("real_models/llama2c-stories260K/" + file); }

/// The opening of the sample llama2.c's doc/stories260K.md publishes for greedy decoding.
const std::string published_opening =
    "Once upon a time, there was a little girl named Lily. She loved to play outside in the park. One day, she saw a big, red ball. She "
    "wanted to play with it, but it was too high.";

template <class T>
std::string greedy_story(const fs::path& model_path)
{
    const auto model = qkov::runs::open_model(model_path);
    const forward::decoder<T> pass(model);
    const io::llama2c_tokenizer tokenizer(stories("tok512.bin"), model.config().vocab_size);
    const auto tokens = forward::greedy_continuation(pass, {io::llama2c_tokenizer::bos}, 80, io::llama2c_tokenizer::bos);
    return tokenizer.decode(tokens);
}

fs::path scratch(const std::string& name)
{
    const auto dir = fs::temp_directory_path() / "qkov-forward-tests";
    fs::create_directories(dir);
    return dir / name;
}

void write_bytes(const fs::path& p, const std::vector<char>& bytes) { std::ofstream(p, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size())); }

void append_int(std::vector<char>& b, std::int32_t v)
{
    const std::size_t at = b.size();
    b.resize(at + 4);
    std::memcpy(b.data() + at, &v, 4);
}

/// A llama2.c header followed by `floats` float32 zeros.
std::vector<char> llama2c_bytes(std::vector<std::int32_t> header, std::size_t floats)
{
    std::vector<char> b;
    for (const auto v : header) append_int(b, v);
    b.resize(b.size() + 4 * floats, 0);
    return b;
}

} // namespace

BOOST_AUTO_TEST_CASE(gpt2_attention_matches_reference_in_float64)
{
    if (const auto e = attention_check_error<double>("gpt2")) BOOST_TEST(*e < 1e-6);
}
BOOST_AUTO_TEST_CASE(gpt_neox_attention_matches_reference_in_float64)
{
    if (const auto e = attention_check_error<double>("gpt_neox")) BOOST_TEST(*e < 1e-6);
}
BOOST_AUTO_TEST_CASE(llama_attention_matches_reference_in_float64)
{
    if (const auto e = attention_check_error<double>("llama")) BOOST_TEST(*e < 1e-6);
}
BOOST_AUTO_TEST_CASE(llama_bf16_attention_matches_reference_in_float64)
{
    if (const auto e = attention_check_error<double>("llama_bf16")) BOOST_TEST(*e < 1e-6);
}
BOOST_AUTO_TEST_CASE(fixture_attention_matches_reference_in_float32)
{
    for (const char* name : {"gpt2", "gpt_neox", "llama"})
        BOOST_TEST_CONTEXT(name)
        {
            if (const auto e = attention_check_error<float>(name)) BOOST_TEST(*e < 1e-5);
        }
}

namespace {
struct logits_reference {
    const char* model;
    double values[3][6];  ///< positions 0, 7, 15; vocabulary entries 0, 97, ..., 485
};
// Printed by tests/forward_reference.py, an independent float64 numpy forward pass written from the
// Hugging Face model definitions, for the 16 tokens below.
const logits_reference full_stack_references[] = {
    {"gpt2", {
        {-0.16484008518937915, 0.13073433170814963, -0.005191471996657258, 0.11043166396896388, 0.08518718158836244, 0.023579767219534052},
        {-0.0961673107019524, 0.08126305393809415, -0.05530948975639817, 0.06555030951809536, 0.03712120170206942, 0.04950580858591177},
        {-0.057108887146985046, 0.08643526243861048, 0.0454805091389544, 0.25735408001216753, 0.030049334088896405, 0.012179418381580475}}},
    {"gpt_neox", {
        {-0.017684735747812902, -0.21512679029792636, -0.15073484060939857, 0.034839404667322875, 0.035206143385437996, -0.02557834465555275},
        {0.005893568013706928, -0.27390501805683326, -0.06563984515087128, -0.18572011821331497, -0.1541322113608811, 0.13544676963149152},
        {-0.13210452697911695, -0.05163746086085285, -0.2673099850285698, 0.0786562394869003, -0.07616946795514541, 0.08967623808001707}}},
    {"llama", {
        {0.12219219463790917, 0.023612388938781075, -0.058680860876680514, -0.041870498995343244, 0.2703675075747957, -0.33019224092707944},
        {-0.3632988506748881, -0.3204903671006129, 0.03444088426314178, -0.23547742486255252, 0.07067668967569092, 0.17761836962310043},
        {-0.12277303583590725, -0.1889515242368929, 0.2096674962253427, -0.1793529575575165, 0.15972377660550371, 0.09083327007974797}}},
};
const std::vector<token_id> reference_tokens{5, 9, 100, 7, 7, 511, 0, 42, 300, 5, 9, 100, 17, 250, 1, 64};

/// The largest difference from the reference's logits; none when the fixture is absent.
template <class T>
std::optional<double> full_stack_error(const logits_reference& r)
{
    const auto dir = test::shared_dir_or_skip(std::string("fixtures/models/") + r.model);
    if (dir.empty()) return std::nullopt;
    const auto logits = forward::decoder<T>(qkov::runs::open_model(dir)).logits(reference_tokens);
    BOOST_TEST(logits.shape()[0] == reference_tokens.size());
    double worst = 0;
    const std::size_t positions[] = {0, 7, 15};
    for (std::size_t i = 0; i < 3; ++i)
        for (std::size_t j = 0; j < 6; ++j) worst = std::max(worst, std::abs(double(logits(positions[i], 97 * j)) - r.values[i][j]));
    return worst;
}
} // namespace

// GPT-2 (LayerNorm, gelu_new, learned positions, Conv1D), GPT-NeoX (parallel residual, erf gelu,
// partial rotary) and Llama (RMSNorm, SwiGLU, GQA): the whole stack, not only attention.
BOOST_AUTO_TEST_CASE(fixture_logits_match_an_independent_reference)
{
    for (const auto& r : full_stack_references)
        BOOST_TEST_CONTEXT(r.model)
        {
            if (const auto e = full_stack_error<double>(r)) BOOST_TEST(*e < 1e-9);
            if (const auto e = full_stack_error<float>(r)) BOOST_TEST(*e < 1e-5);
        }
}

// A tied unembedding is the embedding itself, not a second copy; an untied one is its own matrix.
BOOST_AUTO_TEST_CASE(tied_unembedding_is_not_copied)
{
    const auto gpt2 = test::shared_dir_or_skip("fixtures/models/gpt2"), llama = test::shared_dir_or_skip("fixtures/models/llama");
    if (gpt2.empty() || llama.empty()) return;
    const forward::decoder<float> tied(qkov::runs::open_model(gpt2)), untied(qkov::runs::open_model(llama));
    BOOST_TEST(tied.weights().unembedding.size() == 0u);
    BOOST_TEST(&tied.weights().output_embedding() == &tied.weights().embedding);
    BOOST_TEST(untied.weights().unembedding.size() == untied.weights().embedding.size());
    BOOST_TEST(&untied.weights().output_embedding() == &untied.weights().unembedding);
    BOOST_TEST(untied.weights().output_embedding() != untied.weights().embedding);  // llama's lm_head differs from its embedding
}

// A streamed pass (one layer held, the (un)embedding read in blocks) computes what the resident
// one does, to the bit: logits, a head read into logits, and several sequences run one layer at a
// time, each as if run alone.
BOOST_AUTO_TEST_CASE(streamed_weights_give_the_resident_pass_to_the_bit)
{
    for (const char* family : {"gpt2", "gpt_neox", "llama"})
        BOOST_TEST_CONTEXT(family)
        {
            const auto dir = test::shared_dir_or_skip(std::string("fixtures/models/") + family);
            if (dir.empty()) return;
            const auto model = qkov::runs::open_model(dir);
            const forward::decoder<double> resident(model), streamed(model, forward::weight_residence::streamed);
            BOOST_TEST(streamed.weights().blocks.empty());  // nothing of the layers is held
            BOOST_TEST(streamed.weights().embedding.size() == 0u);
            const std::vector<forward::token_id> a{1, 5, 3, 7, 2}, b{4, 4, 0};
            BOOST_TEST((resident.logits(a) == streamed.logits(a)));
            BOOST_TEST((resident.embed(b) == streamed.embed(b)));
            const std::size_t last = model.config().layers - 1;
            BOOST_TEST((resident.head_unembedding(last, 1) == streamed.head_unembedding(last, 1)));
            // Layer-major over two sequences: each sequence's normed inputs and output as alone.
            std::map<std::pair<std::size_t, std::size_t>, numeric::tensor2<double>> seen;
            forward::layer_stepper<double> stepper(streamed, {streamed.embed(a), streamed.embed(b)});
            while (stepper.next_layer() < model.config().layers) {
                const std::size_t l = stepper.next_layer();
                stepper.step([&](std::size_t i, const numeric::tensor2<double>& normed) { seen[{l, i}] = normed; });
            }
            const auto& together = stepper.residuals();
            BOOST_REQUIRE(together.size() == 2u);
            BOOST_TEST(seen.size() == 2 * model.config().layers);
            std::size_t i = 0;
            for (const auto* tokens : {&a, &b}) {
                std::size_t matching = 0;
                const auto alone = resident.residual_stream_of(resident.embed(*tokens), {}, [&](std::size_t l, const numeric::tensor2<double>& normed) {
                    matching += seen.at({l, i}) == normed ? 1 : 0;
                });
                BOOST_TEST((alone == together[i]));
                BOOST_TEST(matching == model.config().layers);
                ++i;
            }
        }
}

BOOST_AUTO_TEST_CASE(stories260k_decodes_the_published_text_from_each_file)
{
    for (const char* file : {"hf", "stories260K.gguf", "stories260K.bin"}) {
        const auto path = stories(file);
        if (path.empty()) return;
        BOOST_TEST_CONTEXT(file)
        {
            const std::string text = greedy_story<float>(path);
            BOOST_TEST(text.substr(0, published_opening.size()) == published_opening);
        }
    }
}

BOOST_AUTO_TEST_CASE(stories260k_decodes_the_published_text_in_float64)
{
    const auto path = stories("stories260K.bin");
    if (path.empty()) return;
    const std::string text = greedy_story<double>(path);
    BOOST_TEST(text.substr(0, published_opening.size()) == published_opening);
}

// The .bin and .gguf files hold Q/K rows in interleaved order, hf/ in rotate_half order: the same
// model only when each is rotated with its own pairing.
BOOST_AUTO_TEST_CASE(stories260k_files_give_the_same_logits)
{
    const auto bin = stories("stories260K.bin"), gguf = stories("stories260K.gguf"), hf = stories("hf");
    if (bin.empty() || gguf.empty() || hf.empty()) return;
    const std::vector<token_id> tokens{1, 403, 407, 261, 378, 395, 288, 259, 344, 426, 13, 500, 7, 99, 260};
    const auto a = forward::decoder<double>(qkov::runs::open_model(bin)).logits(tokens);
    for (const auto& other : {gguf, hf}) {
        const auto b = forward::decoder<double>(qkov::runs::open_model(other)).logits(tokens);
        BOOST_TEST_CONTEXT(other.string()) { BOOST_TEST(double(xt::amax(xt::abs(a - b))()) < 1e-9); }
    }
    // A wrong pairing is caught: the hf/ weights rotated as if interleaved give other logits.
    auto model = qkov::runs::open_model(hf);
    auto config = model.config();
    config.rope->pairing = rope_pairing::interleaved;
    const model::attention_model wrong(config, io::open_safetensors_checkpoint(hf));
    const auto c = forward::decoder<double>(wrong).logits(tokens);
    BOOST_TEST(double(xt::amax(xt::abs(a - c))()) > 1e-3);
}

// TinyStories-656K in its three containers (../shared/real_models/tinystories-656k): the Hugging
// Face directory (embed_tokens.weight, tied), the original file that holds the tied matrix only as
// lm_head.weight (src/: read through the tie the other way), and llama.cpp's Q8_0 GGUF (q/k rows
// in llama.cpp's interleaved order). The first two are one set of float32 numbers: the same logits
// and greedy text; the GGUF gives the same greedy text too. The GGUF's weights are those numbers
// quantised: each within io::q8_0_error_bound of its block's largest |w|, bounded here by the row's
// largest |w|, as a block lies within one row.
BOOST_AUTO_TEST_CASE(tinystories656k_containers_hold_one_model)
{
    const auto dir = test::shared_dir_or_skip("real_models/tinystories-656k");
    if (dir.empty()) return;
    const auto hf = qkov::runs::open_model(dir), src = qkov::runs::open_model(dir / "src"), gguf = qkov::runs::open_model(dir / "TinyStories-656K-Q8_0.gguf");
    BOOST_TEST(src.embedding_status() == "tied: stored as the unembedding");
    BOOST_TEST_REQUIRE(src.embedding().has_value());
    BOOST_TEST(double(xt::amax(xt::abs(*src.embedding() - *hf.embedding()))()) == 0.0);
    const std::vector<token_id> tokens{1, 403, 407, 261, 378, 395, 288, 259, 344, 426, 13, 500, 7, 99, 260};
    const forward::decoder<double> hf_pass(hf), src_pass(src);
    BOOST_TEST(double(xt::amax(xt::abs(hf_pass.logits(tokens) - src_pass.logits(tokens)))()) == 0.0);
    const auto greedy = forward::greedy_continuation(hf_pass, {1}, 40, 1);
    BOOST_TEST(greedy.size() > 10u);
    BOOST_TEST((forward::greedy_continuation(src_pass, {1}, 40, 1) == greedy));
    // Quantised, the GGUF's logits differ, but not by enough to change any of these 40 greedy
    // choices (measured: the same 40 tokens), so the text read through llama.cpp's q/k row order
    // is the model's text.
    const forward::decoder<double> gguf_pass(gguf);
    BOOST_TEST((forward::greedy_continuation(gguf_pass, {1}, 40, 1) == greedy));

    const auto within_quantisation = [&](const model::matrix& exact, const model::matrix& quantised, const std::string& what) {
        BOOST_TEST_REQUIRE(exact.shape() == quantised.shape(), what);
        double worst = 0;  // the largest error as a share of its row's bound
        for (std::size_t r = 0; r < exact.shape()[0]; ++r) {
            double row_max = 0;
            for (std::size_t c = 0; c < exact.shape()[1]; ++c) row_max = std::max(row_max, std::abs(exact(r, c)));
            const double bound = io::q8_0_error_bound(row_max);
            for (std::size_t c = 0; c < exact.shape()[1]; ++c) worst = std::max(worst, std::abs(exact(r, c) - quantised(r, c)) / bound);
        }
        BOOST_TEST(worst <= 1.0, what << ": error " << worst << " of the Q8_0 bound");
        BOOST_TEST(worst > 0.0, what << ": quantised, so not equal");  // the GGUF is read, not the safetensors again
    };
    const auto d = hf.config().head_dim;
    for (std::size_t l = 0; l < hf.config().layers; ++l) {
        const auto a = hf.layer(l), b = gguf.layer(l);
        for (std::size_t h = 0; h < a.heads.size(); ++h) {
            const std::string head = std::to_string(l) + "." + std::to_string(h);
            // llama.cpp's row order within a head: GGUF row 2i + j is Hugging Face row j d/2 + i.
            model::matrix q = a.heads[h].w_q, k = a.heads[h].w_k;
            for (std::size_t i = 0; i < d / 2; ++i)
                for (std::size_t j = 0; j < 2; ++j) {
                    xt::row(q, 2 * i + j) = xt::row(a.heads[h].w_q, j * d / 2 + i);
                    xt::row(k, 2 * i + j) = xt::row(a.heads[h].w_k, j * d / 2 + i);
                }
            within_quantisation(q, b.heads[h].w_q, "W_q " + head);
            within_quantisation(k, b.heads[h].w_k, "W_k " + head);
            within_quantisation(a.heads[h].w_v, b.heads[h].w_v, "W_v " + head);
        }
        // W_o's blocks run along the H d inputs, across heads: the whole D x Hd projection, row by row.
        within_quantisation(hf.layer_output(l), gguf.layer_output(l), "W_o of layer " + std::to_string(l));
    }
}

BOOST_AUTO_TEST_CASE(patterns_are_kept_on_request_and_are_causal_distributions)
{
    const auto dir = test::shared_dir_or_skip("fixtures/models/gpt_neox");
    if (dir.empty()) return;
    const forward::decoder<double> pass(qkov::runs::open_model(dir));
    const std::vector<token_id> tokens{5, 9, 100, 7, 7, 511, 0, 42};
    forward::kept_patterns<double> kept;
    const auto with = pass.logits(tokens, forward::keep_patterns(kept, 2, 4));
    const auto without = pass.logits(tokens);
    BOOST_TEST(double(xt::amax(xt::abs(with - without))()) == 0.0);  // watching changes nothing
    BOOST_TEST(with.shape()[0] == tokens.size());
    BOOST_TEST(with.shape()[1] == 512u);
    for (const auto& layer : kept.patterns)
        for (const auto& p : layer) {
            BOOST_TEST(p.shape()[0] == tokens.size());
            for (std::size_t i = 0; i < tokens.size(); ++i) {
                double sum = 0;
                for (std::size_t j = 0; j < tokens.size(); ++j) sum += p(i, j);
                BOOST_TEST(std::abs(sum - 1) < 1e-12);
                for (std::size_t j = i + 1; j < tokens.size(); ++j) BOOST_TEST(p(i, j) == 0.0);
            }
        }
}

BOOST_AUTO_TEST_CASE(attention_only_file_names_what_the_forward_pass_lacks)
{
    const auto dir = test::shared_dir_or_skip("real_models/gpt2-small-attention");
    if (dir.empty()) return;
    const auto model = qkov::runs::open_model(dir);
    const std::string e = error_of([&] { forward::decoder<float> pass(model); });
    BOOST_TEST(contains(e, "the file lacks wte.weight"));
    BOOST_TEST(contains(e, "mlp.c_fc.weight (layers 0-11)"));
    BOOST_TEST(contains(e, "mlp.c_proj.weight (layers 0-11)"));
    BOOST_TEST(contains(e, "needed by the forward pass"));
    BOOST_TEST(!contains(e, "ln_2"));  // present in the file
}

BOOST_AUTO_TEST_CASE(tokens_outside_the_vocabulary_and_positions_are_refused)
{
    const auto dir = test::shared_dir_or_skip("fixtures/models/gpt2");
    if (dir.empty()) return;
    const forward::decoder<double> pass(qkov::runs::open_model(dir));
    const std::vector<token_id> bad{1, 512};
    BOOST_TEST(contains(error_of([&] { (void)pass.logits(bad); }), "token 512 at position 1 is outside the vocabulary of 512"));
    const std::vector<token_id> long_sequence(129, 3);
    BOOST_TEST(contains(error_of([&] { (void)pass.logits(long_sequence); }), "129 tokens, but the model has learned positions for 128"));
    BOOST_TEST(contains(error_of([&] { (void)pass.logits(std::vector<token_id>{}); }), "at least one token"));
}

BOOST_AUTO_TEST_CASE(rope_scaling_schedules)
{
    io::rope_config r{rope_pairing::rotate_half, 8, 10000.0, std::nullopt};
    auto theta = forward::rope_theta(r);
    BOOST_TEST(theta[1] == 0.1, boost::test_tools::tolerance(1e-15));
    r.scaling = io::rope_scaling{"linear", 4.0};
    theta = forward::rope_theta(r);
    BOOST_TEST(theta[2] == 0.0025, boost::test_tools::tolerance(1e-14));
    // llama3 with original context 1000 and the band [1, 4]: wavelengths 6.3 and 62.8 are kept,
    // 628 is blended, 6283 is divided by the factor (expected values worked out by hand).
    io::rope_scaling llama3{"llama3", 8.0};
    llama3.low_freq_factor = 1, llama3.high_freq_factor = 4, llama3.original_max_position_embeddings = 1000;
    r.scaling = llama3;
    theta = forward::rope_theta(r);
    BOOST_TEST(theta[0] == 1.0);
    BOOST_TEST(theta[1] == 0.1, boost::test_tools::tolerance(1e-14));
    BOOST_TEST(theta[2] == 0.002975352506846947, boost::test_tools::tolerance(1e-12));
    BOOST_TEST(theta[3] == 0.000125, boost::test_tools::tolerance(1e-12));
    r.scaling = io::rope_scaling{"yarn", 4.0};
    BOOST_TEST(contains(error_of([&] { (void)forward::rope_theta(r); }), "does not apply RoPE scaling of type 'yarn'"));
}

BOOST_AUTO_TEST_CASE(unknown_activation_is_refused)
{
    BOOST_TEST(contains(error_of([] { (void)forward::parse_activation("relu2"); }), "does not know the activation 'relu2'"));
    BOOST_TEST(forward::activate(forward::activation::silu, 0.0) == 0.0);
    BOOST_TEST(forward::activate(forward::activation::gelu_erf, 1.0) == 0.8413447460685429, boost::test_tools::tolerance(1e-15));
    BOOST_TEST(forward::activate(forward::activation::gelu_tanh, 1.0) == 0.8411919906082768, boost::test_tools::tolerance(1e-15));
}

namespace {
/// The largest difference between activate_in_place and activate over 2,500 values (two whole
/// chunks, a partial one and a tail shorter than a vector) from -300 to 300, in units of
/// epsilon * max(1, |x|): the formula's own rounding error grows with |x| where tanh nears -1.
template <class T>
double in_place_activation_error(forward::activation a)
{
    std::vector<T> x(2500);
    for (std::size_t i = 0; i < x.size(); ++i) x[i] = static_cast<T>(300 * std::sinh(std::sin(0.37 * double(i)) * 6.5) / std::sinh(6.5));
    x[0] = T(0), x[1] = -T(0), x[2] = T(1e-30), x[3] = T(-1000), x[4] = T(1000);
    std::vector<T> y = x;
    forward::activate_in_place(a, y.data(), y.size());
    double worst = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        const double expected = forward::activate(a, x[i]);
        worst = std::max(worst, std::abs(double(y[i]) - expected) / (std::numeric_limits<T>::epsilon() * std::max(1.0, std::abs(double(x[i])))));
    }
    BOOST_TEST(y[3] == T(0));  // gelu and silu of -1000: 0 (exp overflows, x / inf)
    BOOST_TEST(y[4] == T(1000));
    T nan = std::numeric_limits<T>::quiet_NaN();
    forward::activate_in_place(a, &nan, 1);
    BOOST_TEST(std::isnan(nan));
    return worst;
}
} // namespace

BOOST_AUTO_TEST_CASE(activations_in_place_match_the_formula)
{
    for (const auto a : {forward::activation::gelu_tanh, forward::activation::silu, forward::activation::gelu_erf})
        BOOST_TEST_CONTEXT("activation " << int(a))
        {
            BOOST_TEST(in_place_activation_error<float>(a) < 8);
            BOOST_TEST(in_place_activation_error<double>(a) < 8);
        }
}

// dim 8, hidden 4, 1 layer, 2 heads of 4, 1 kv head, vocabulary 3, seq_len 2: embedding 24, rms_att 8,
// wq 64, wk 32, wv 32, wo 64, rms_ffn 8, w1 + w2 + w3 96, rms_final 8, freq_cis 8: 344 floats.
const std::vector<std::int32_t> small_header{8, 4, 1, 2, 1, 3, 2};
constexpr std::size_t small_floats = 344;

BOOST_AUTO_TEST_CASE(llama2c_reader_accepts_a_well_formed_file)
{
    const auto p = scratch("ok.bin");
    write_bytes(p, llama2c_bytes(small_header, small_floats));
    const io::llama2c_file f(p);
    BOOST_TEST(f.header().head_dim() == 4u);
    BOOST_TEST(f.find("model.layers.0.mlp.down_proj.weight") != nullptr);
    BOOST_TEST(f.find("model.layers.0.mlp.down_proj.weight")->shape == (std::vector<std::size_t>{8, 4}));
    BOOST_TEST(f.find("lm_head.weight") == nullptr);  // shared classifier
    auto unshared = small_header;
    unshared[5] = -3;
    write_bytes(p, llama2c_bytes(unshared, small_floats + 24));
    BOOST_TEST(io::llama2c_file(p).find("lm_head.weight") != nullptr);
}

BOOST_AUTO_TEST_CASE(llama2c_reader_refuses_damaged_files)
{
    const auto p = scratch("bad.bin");
    const auto error = [&](const std::vector<char>& bytes) {
        write_bytes(p, bytes);
        return error_of([&] { io::llama2c_file f(p); });
    };
    BOOST_TEST(contains(error(std::vector<char>(10, 0)), "starts with a 28-byte header; the file has 10 bytes"));
    BOOST_TEST(contains(error(llama2c_bytes(small_header, small_floats - 1)), "implies 1404 bytes, the file has 1400"));
    BOOST_TEST(contains(error(llama2c_bytes(small_header, small_floats + 1)), "implies 1404 bytes, the file has 1408"));
    BOOST_TEST(contains(error(llama2c_bytes({8, 4, 1, 3, 1, 3, 2}, 0)), "n_heads = 3 does not divide dim = 8"));
    BOOST_TEST(contains(error(llama2c_bytes({8, 4, 1, 4, 3, 3, 2}, 0)), "n_kv_heads = 3 does not divide n_heads = 4"));
    BOOST_TEST(contains(error(llama2c_bytes({8, 4, 1, 8, 1, 3, 2}, 0)), "dim / n_heads = 1 is odd"));
    BOOST_TEST(contains(error(llama2c_bytes({8, 0, 1, 2, 1, 3, 2}, 0)), "hidden_dim = 0 must be positive"));
    BOOST_TEST(contains(error(llama2c_bytes({8, 4, 1, 2, 1, 3, 2147483647}, 0)), "seq_len = 2147483647 must be positive and at most"));
    BOOST_TEST(contains(error(llama2c_bytes({8, 4, 1, 2, 1, -2147483647 - 1, 2}, 0)), "vocab_size = -2147483648"));
}

// Products of three header values reach 2^72; this 92-byte header is solved so that the size it
// implies, wrapped around 2^64, is 92: the tensors would then point far outside the file.
BOOST_AUTO_TEST_CASE(llama2c_header_whose_size_wraps_around_64_bits_is_refused)
{
    const auto p = scratch("wrap.bin");
    write_bytes(p, llama2c_bytes({16777216, 11184799, 16384, 1048576, 1, 16383, 1}, 16));
    const auto e = error_of([&] { io::llama2c_file f(p); });
    BOOST_TEST(contains(e, "implies more bytes than 64 bits can count, the file has 92"), e);
}

// Finite weights near the float maximum overflow in float32: the scores were NaN and reported as
// measured; now the pass stops and names the head. float64 holds them.
BOOST_AUTO_TEST_CASE(overflow_from_finite_weights_is_an_error_naming_the_head)
{
    // The layout of small_header (see above): norms at [24, 32), [224, 232), [328, 336); wq at [32, 96).
    std::vector<char> bytes = llama2c_bytes(small_header, 0);
    for (std::size_t i = 0; i < small_floats; ++i) {
        const bool norm = (i >= 24 && i < 32) || (i >= 224 && i < 232) || (i >= 328 && i < 336);
        const float x = i >= 32 && i < 96 ? 3e38f : norm ? 1.0f : 0.1f;
        const std::size_t at = bytes.size();
        bytes.resize(at + 4);
        std::memcpy(bytes.data() + at, &x, 4);
    }
    const auto p = scratch("overflow.bin");
    write_bytes(p, bytes);
    const auto model = qkov::runs::open_model(p);
    const std::vector<token_id> tokens{1, 2};
    const auto e = error_of([&] { (void)forward::decoder<float>(model).logits(tokens); });
    BOOST_TEST(contains(e, "layer 0 head 0's attention pattern is not finite although every weight is"), e);
    BOOST_TEST(contains(e, "--dtype float64"));
    BOOST_TEST(error_of([&] { (void)forward::decoder<double>(model).logits(tokens); }) == "(no error)");
}

// A sequence longer than the context a RoPE model declares (no position table bounds it) is
// refused before the pass, as is one whose n x n pattern would pass 1 GiB.
BOOST_AUTO_TEST_CASE(sequences_past_the_declared_context_are_refused)
{
    const auto p = scratch("context.bin");
    write_bytes(p, llama2c_bytes(small_header, small_floats));  // seq_len 2
    const auto model = qkov::runs::open_model(p);
    const std::vector<token_id> three{1, 2, 0};
    BOOST_TEST(contains(error_of([&] { (void)forward::decoder<double>(model).logits(three); }), "3 tokens, but the model's context is 2 positions"));
    auto long_header = small_header;
    long_header[6] = 40000;  // seq_len: freq_cis is 40000 x 4 floats
    const auto q = scratch("long-context.bin");
    write_bytes(q, llama2c_bytes(long_header, small_floats - 8 + 40000 * 4));
    const auto long_model = qkov::runs::open_model(q);
    const std::vector<token_id> many(20000, 1);
    BOOST_TEST(contains(error_of([&] { (void)forward::decoder<float>(long_model).logits(many); }), "the forward pass takes at most 16384 tokens"));
}

BOOST_AUTO_TEST_CASE(pytorch_zip_named_bin_is_refused_as_a_pickle)
{
    const auto p = scratch("pytorch_model.bin");
    write_bytes(p, {'P', 'K', 3, 4, 0, 0, 0, 0});
    BOOST_TEST(contains(error_of([&] { (void)qkov::runs::open_model(p); }), "never unpickles"));
}

namespace {
std::vector<char> tokenizer_bytes(std::int32_t longest, const std::vector<std::string>& pieces)
{
    std::vector<char> b;
    append_int(b, longest);
    for (const auto& piece : pieces) {
        append_int(b, 0);  // the score (a float32 0)
        append_int(b, static_cast<std::int32_t>(piece.size()));
        b.insert(b.end(), piece.begin(), piece.end());
    }
    return b;
}
} // namespace

BOOST_AUTO_TEST_CASE(llama2c_tokenizer_decodes_as_run_does)
{
    const auto p = scratch("tok.bin");
    write_bytes(p, tokenizer_bytes(6, {"<unk>", "<s>", "</s>", " Once", " upon", "<0x41>", "<0xZZ>"}));
    const io::llama2c_tokenizer t(p, 7);
    BOOST_TEST(t.decode(1, 3) == "Once");   // a leading space after BOS is dropped
    BOOST_TEST(t.decode(3, 4) == " upon");  // elsewhere it stays
    BOOST_TEST(t.decode(3, 5) == "A");      // a raw byte
    BOOST_TEST(t.decode(3, 6) == "<0xZZ>"); // not a byte: the piece itself
    BOOST_TEST(t.decode({1, 3, 4}) == "Once upon");
    BOOST_TEST(contains(error_of([&] { (void)t.decode(1, 7); }), "token 7 outside the tokenizer's 7 pieces"));
}

BOOST_AUTO_TEST_CASE(llama2c_tokenizer_refuses_damaged_files)
{
    const auto p = scratch("badtok.bin");
    const auto error = [&](const std::vector<char>& bytes, std::size_t vocab) {
        write_bytes(p, bytes);
        return error_of([&] { io::llama2c_tokenizer t(p, vocab); });
    };
    BOOST_TEST(contains(error({1, 0}, 1), "ends inside the max_token_length header"));
    BOOST_TEST(contains(error(tokenizer_bytes(0, {}), 0), "max_token_length 0 must be in 1 .."));
    BOOST_TEST(contains(error(tokenizer_bytes(4, {"ab"}), 2), "too short for 2 tokens"));
    BOOST_TEST(contains(error(tokenizer_bytes(4, {"abcdef"}), 1), "token 0 has length 6, outside 0 .. max_token_length 4"));
    auto truncated = tokenizer_bytes(4, {"abc", "abcd"});
    truncated.resize(truncated.size() - 2);
    BOOST_TEST(contains(error(truncated, 2), "token 1 runs past the end of the file"));
    auto negative = tokenizer_bytes(4, {"a"});
    std::int32_t minus = -5;
    std::memcpy(negative.data() + 8, &minus, 4);
    BOOST_TEST(contains(error(negative, 1), "token 0 has length -5"));
    BOOST_TEST(contains(error(tokenizer_bytes(4, {"a", "b"}), 1), "9 bytes follow the last of the 1 tokens"));
}

namespace {
/// A pattern whose row i puts all its weight on key target(i).
template <class Target>
forward::tensor2<double> one_hot_pattern(std::size_t n, Target target)
{
    forward::tensor2<double> p = xt::zeros<double>({n, n});
    for (std::size_t i = 0; i < n; ++i) p(i, target(i)) = 1;
    return p;
}
} // namespace

// [BOS] + r + r with |r| = 3: the second copy is rows 4, 5, 6; a perfect head scores 3/7 there.
BOOST_AUTO_TEST_CASE(detectors_score_hand_built_heads)
{
    const std::vector<token_id> tokens{1, 5, 6, 7, 5, 6, 7};
    const auto previous = forward::detect(one_hot_pattern(7, [](std::size_t i) { return i == 0 ? 0 : i - 1; }), tokens);
    BOOST_TEST(previous.previous_token == 6.0 / 7, boost::test_tools::tolerance(1e-15));
    BOOST_TEST(previous.duplicate_token == 0.0);
    BOOST_TEST(previous.induction == 0.0);
    const auto duplicate = forward::detect(one_hot_pattern(7, [](std::size_t i) { return i >= 4 ? i - 3 : 0; }), tokens);
    BOOST_TEST(duplicate.duplicate_token == 3.0 / 7, boost::test_tools::tolerance(1e-15));
    BOOST_TEST(duplicate.induction == 0.0);
    BOOST_TEST(duplicate.previous_token == 1.0 / 7, boost::test_tools::tolerance(1e-15));  // row 1 looks at 0
    const auto induction = forward::detect(one_hot_pattern(7, [](std::size_t i) { return i >= 4 ? i - 2 : 0; }), tokens);
    BOOST_TEST(induction.induction == 3.0 / 7, boost::test_tools::tolerance(1e-15));
    BOOST_TEST(induction.duplicate_token == 0.0);
    // A token three times, each row attending uniformly to what it sees: row 1 has one earlier
    // copy (key 0, next key 1), row 2 two (keys 0 and 1, next keys 1 and 2); sum(A) = 3.
    forward::tensor2<double> uniform = xt::zeros<double>({3, 3});
    for (std::size_t i = 0; i < 3; ++i)
        for (std::size_t j = 0; j <= i; ++j) uniform(i, j) = 1.0 / double(i + 1);
    const auto repeated = forward::detect(uniform, std::vector<token_id>{4, 4, 4});
    BOOST_TEST(repeated.duplicate_token == (1.0 / 2 + 2.0 / 3) / 3, boost::test_tools::tolerance(1e-15));
    BOOST_TEST(repeated.induction == (1.0 / 2 + 2.0 / 3) / 3, boost::test_tools::tolerance(1e-15));
    BOOST_TEST(repeated.previous_token == (1.0 / 2 + 1.0 / 3) / 3, boost::test_tools::tolerance(1e-15));
    const std::vector<token_id> shorter{1, 5};
    BOOST_TEST(contains(error_of([&] { (void)forward::detect(one_hot_pattern(7, [](std::size_t) { return 0; }), shorter); }), "n x n pattern for n = 2"));
}

namespace {
// Every head's TransformerLens previous-token and induction scores ('mul': sum(A * P) / sum(A)) on
// the sequence below, printed by tests/stories260k_reference.py: an independent float64 numpy
// Llama forward pass over hf/'s safetensors (checked there against llama2.c's published greedy
// text), not qkov's output. [layer][head] = {previous_token, induction}.
const double stories260k_reference_scores[5][8][2] = {
    {{0.05730466124560476, 0.02146687583756492}, {0.07268882903337898, 0.017474247570526916}, {0.06768347665878377, 0.01218729543241576}, {0.045974766517359475, 0.030481318963941875}, {0.04134251376902116, 0.017477979613495506}, {0.0351059591510503, 0.017502911274075866}, {0.02366866634284801, 0.0051810252366247915}, {0.04217134136701337, 0.02861957142898168}},
    {{0.2625658005730161, 0.0014272032815733455}, {0.33886339386007036, 0.001054063450465239}, {0.6847876460053053, 0.0002426642980969256}, {0.8599075136577234, 9.570804146437798e-07}, {0.6791680744853308, 7.1568883775622525e-06}, {0.6760628682254255, 6.547251863734416e-07}, {0.5088006768766591, 0.002214007382381485}, {0.3173537398279167, 0.0007125633650068331}},
    {{0.24431565474400715, 8.595638405467235e-06}, {0.4287074800367154, 1.5030213297692821e-09}, {0.4495796009355991, 0.0007794363208605928}, {0.3178522168872429, 0.00021187911130905146}, {0.04221892654773017, 0.007391714030222021}, {0.06765650455529519, 0.007877171140531639}, {0.08002805040274877, 0.007962654677459888}, {0.14020074219261144, 0.0011618404808152916}},
    {{0.09250585667232245, 0.013381197531476346}, {0.19318580341115366, 0.0009824437156130687}, {0.33619062572877595, 5.6388802345419646e-05}, {0.12141413691233788, 0.0021234097257106788}, {0.24995264509631232, 6.878509381273147e-10}, {0.3836072334113918, 0.0003510113512445641}, {0.8427047325842502, 9.084961541986644e-08}, {0.6438124227326225, 2.559535637434487e-05}},
    {{0.04641501446993831, 0.026491054850931634}, {0.12379741444887299, 0.005342748214336882}, {0.11963744052775518, 0.005771781951086637}, {0.09503099150030463, 0.011017336427946956}, {0.10195054750794925, 0.010627924921743775}, {0.08489286407993586, 0.010824536859529083}, {0.2041302860448749, 9.039350670524451e-05}, {0.14409035009069243, 0.003035398286362676}},
};
} // namespace

// stories260K on [BOS] + r + r, |r| = 20, scored as it streams past: every head's scores equal the
// independent reference's (float32 against float64: 1e-4 is far above the float32 pass's rounding,
// far below any difference between heads), so layer 1 head 3 and layer 3 head 6 attend to the
// previous token (0.86 and 0.84) and no head is an induction head (every score below 0.031).
BOOST_AUTO_TEST_CASE(stories260k_has_previous_token_heads_and_no_induction_head)
{
    const auto path = stories("stories260K.bin");
    if (path.empty()) return;
    const auto model = qkov::runs::open_model(path);
    BOOST_TEST_REQUIRE(model.config().layers == 5u);
    BOOST_TEST_REQUIRE(model.config().heads == 8u);
    const forward::decoder<float> pass(model);
    std::vector<token_id> tokens{1};
    for (token_id t : {300, 41, 77, 412, 150, 9, 260, 333, 98, 201, 57, 480, 122, 19, 365, 240, 88, 171, 450, 63}) tokens.push_back(t);
    for (std::size_t i = 1; i <= 20; ++i) tokens.push_back(tokens[i]);
    std::vector<std::vector<forward::head_scores>> scores;
    const auto visit = forward::score_heads<float>(scores, tokens, model.config().layers, model.config().heads);
    std::size_t agreeing = 0;  // the visitor's scores (earlier copies found once) equal detect's on the same pattern
    (void)pass.logits(tokens, [&](std::size_t l, std::size_t h, const forward::tensor2<float>& p) {
        visit(l, h, p);
        const auto alone = forward::detect(p, tokens);
        agreeing += scores[l][h].previous_token == alone.previous_token && scores[l][h].duplicate_token == alone.duplicate_token &&
                    scores[l][h].induction == alone.induction;
    });
    BOOST_TEST(agreeing == model.config().layers * model.config().heads);
    for (std::size_t l = 0; l < 5; ++l)
        for (std::size_t h = 0; h < 8; ++h) {
            BOOST_TEST(std::abs(scores[l][h].previous_token - stories260k_reference_scores[l][h][0]) < 1e-4,
                       l << "." << h << " previous_token " << scores[l][h].previous_token << " against " << stories260k_reference_scores[l][h][0]);
            BOOST_TEST(std::abs(scores[l][h].induction - stories260k_reference_scores[l][h][1]) < 1e-4,
                       l << "." << h << " induction " << scores[l][h].induction << " against " << stories260k_reference_scores[l][h][1]);
        }
}

namespace {

/// A two-layer SmolLM3 checkpoint (D = 8, 2 query heads sharing 1 kv head, d = 4, V = 12, MLP
/// width I) with fixed pseudo-random weights and the given no_rope_layers; `quiet_layer0_queries`
/// zeroes layer 0's W_q, so that its pattern is uniform whether it rotates or not.
fs::path tiny_smollm3(const std::string& name, const nlohmann::json& no_rope_layers, bool quiet_layer0_queries = false, std::size_t I = 12)
{
    constexpr std::size_t D = 8, H = 2, K = 1, d = 4, V = 12;
    std::uint32_t state = 12345;
    const auto values = [&](std::size_t n, float scale) {
        std::vector<float> v(n);
        for (float& x : v) {
            state = state * 1664525u + 1013904223u;  // a fixed LCG: the same weights on every platform
            x = scale * (static_cast<float>(state >> 8) / static_cast<float>(1u << 24) - 0.5f);
        }
        return v;
    };
    const auto norm = [&] {
        auto v = values(D, 0.4f);
        for (float& x : v) x += 1.0f;
        return test::float_tensor{{D}, v};
    };
    std::map<std::string, test::float_tensor> t;
    t["model.embed_tokens.weight"] = {{V, D}, values(V * D, 2.0f)};
    t["lm_head.weight"] = {{V, D}, values(V * D, 2.0f)};
    t["model.norm.weight"] = norm();
    for (std::size_t l = 0; l < 2; ++l) {
        const std::string p = "model.layers." + std::to_string(l) + ".";
        t[p + "input_layernorm.weight"] = norm();
        t[p + "post_attention_layernorm.weight"] = norm();
        auto q = values(H * d * D, 3.0f);
        if (l == 0 && quiet_layer0_queries) q.assign(q.size(), 0.0f);
        t[p + "self_attn.q_proj.weight"] = {{H * d, D}, q};
        t[p + "self_attn.k_proj.weight"] = {{K * d, D}, values(K * d * D, 3.0f)};
        t[p + "self_attn.v_proj.weight"] = {{K * d, D}, values(K * d * D, 1.0f)};
        t[p + "self_attn.o_proj.weight"] = {{D, H * d}, values(D * H * d, 1.0f)};
        t[p + "mlp.gate_proj.weight"] = {{I, D}, values(I * D, 1.0f)};
        t[p + "mlp.up_proj.weight"] = {{I, D}, values(I * D, 1.0f)};
        t[p + "mlp.down_proj.weight"] = {{D, I}, values(D * I, 1.0f)};
    }
    const nlohmann::json config = {{"model_type", "smollm3"},        {"architectures", {"SmolLM3ForCausalLM"}},
                                   {"hidden_size", D},               {"num_hidden_layers", 2},
                                   {"num_attention_heads", H},       {"num_key_value_heads", K},
                                   {"head_dim", d},                  {"intermediate_size", I},
                                   {"vocab_size", V},                {"rope_theta", 10.0},
                                   {"rms_norm_eps", 1e-6},           {"tie_word_embeddings", false},
                                   {"no_rope_layers", no_rope_layers}};
    return test::write_checkpoint("forward-" + name, config, t);
}

/// The same weights with another RoPE schedule: `rotate` = the file's rope in every layer, else none at all.
forward::decoder<double> rescheduled(const model::attention_model& m, bool rotate)
{
    auto w = forward::read_decoder_weights<double>(m);
    w.config.rope_layers.clear();
    if (!rotate) w.config.rope.reset();
    return forward::decoder<double>(std::move(w));
}

double max_difference(const forward::tensor2<double>& a, const forward::tensor2<double>& b)
{
    BOOST_REQUIRE(a.shape() == b.shape());
    double worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, std::abs(a.data()[i] - b.data()[i]));
    return worst;
}

const std::vector<token_id> nope_tokens{1, 7, 3, 9, 3, 11, 4, 7, 2, 5};

} // namespace

// An MLP wider than one slice (forward::mlp_slice_width) is summed slice by slice: the resident
// and the streamed pass agree to the bit, each sequence stepped with another is as when run
// alone, and the sum of the slices is the one product of the whole MLP up to rounding.
BOOST_AUTO_TEST_CASE(an_mlp_wider_than_a_slice_is_summed_slice_by_slice)
{
    const std::size_t width = 2 * forward::mlp_slice_width + 5;
    const auto model = qkov::runs::open_model(tiny_smollm3("wide-mlp", {1, 1}, false, width));
    const forward::decoder<double> resident(model), streamed(model, forward::weight_residence::streamed);
    BOOST_TEST_REQUIRE(resident.weights().blocks.at(0).mlp.slices.size() == 3u);
    BOOST_TEST(resident.weights().blocks.at(0).mlp.slices.at(2).w_in.shape()[0] == 5u);
    const std::vector<token_id> a{1, 7, 3, 9, 3}, b{4, 4, 0, 11};
    BOOST_TEST((resident.logits(a) == streamed.logits(a)));
    forward::layer_stepper<double> stepper(streamed, {streamed.embed(a), streamed.embed(b)});
    while (stepper.next_layer() < model.config().layers) stepper.step();
    BOOST_TEST((stepper.residuals().at(0) == resident.residual_stream(a)));
    BOOST_TEST((stepper.residuals().at(1) == resident.residual_stream(b)));
    // The same weights with the MLP as one slice: one product over the whole width.
    auto whole = forward::read_decoder_weights<double>(model);
    for (auto& block : whole.blocks) {
        forward::mlp_slice<double> one;
        const std::size_t D = model.config().hidden_size;
        one.w_in = forward::tensor2<double>::from_shape({width, D}), one.w_gate = forward::tensor2<double>::from_shape({width, D});
        one.w_out = forward::tensor2<double>::from_shape({D, width});
        std::size_t first = 0;
        for (const auto& part : block.mlp.slices) {
            const std::size_t f = part.w_in.shape()[0];
            std::copy(part.w_in.begin(), part.w_in.end(), one.w_in.begin() + static_cast<std::ptrdiff_t>(first * D));
            std::copy(part.w_gate.begin(), part.w_gate.end(), one.w_gate.begin() + static_cast<std::ptrdiff_t>(first * D));
            for (std::size_t r = 0; r < D; ++r)
                for (std::size_t j = 0; j < f; ++j) one.w_out(r, first + j) = part.w_out(r, j);
            first += f;
        }
        BOOST_TEST_REQUIRE(first == width);
        block.mlp.slices = {std::move(one)};
    }
    const forward::decoder<double> unsliced(std::move(whole));
    const auto sliced_logits = resident.logits(a), whole_logits = unsliced.logits(a);
    double scale = 0;
    for (const double x : whole_logits) scale = std::max(scale, std::abs(x));
    BOOST_TEST(max_difference(sliced_logits, whole_logits) <= 1e-12 * scale);
}

// Layer by layer: the RoPE layer of a [1, 0] model is the all-RoPE model's, its NoPE layer the
// RoPE-free model's; and a NoPE layer is blind to order: its last query sees the earlier keys as a
// set, so shuffling them leaves its output unchanged, which a RoPE layer's does not.
BOOST_AUTO_TEST_CASE(nope_layer_attends_without_rotation)
{
    const auto model = qkov::runs::open_model(tiny_smollm3("nope", {1, 0}));
    BOOST_TEST((model.config().rope_layers == std::vector<bool>{true, false}));
    const forward::decoder<double> mixed(model);
    const auto all = rescheduled(model, true), none = rescheduled(model, false);
    const auto x = probe<double>(model.config().hidden_size);
    BOOST_TEST(max_difference(mixed.attention(0, x), all.attention(0, x)) == 0.0);
    BOOST_TEST(max_difference(mixed.attention(0, x), none.attention(0, x)) > 1e-3);
    BOOST_TEST(max_difference(mixed.attention(1, x), none.attention(1, x)) == 0.0);
    BOOST_TEST(max_difference(mixed.attention(1, x), all.attention(1, x)) > 1e-3);

    const std::size_t n = x.shape()[0], last = n - 1;
    auto shuffled = x;
    for (std::size_t t = 0; t < last; ++t)  // reverse rows 0 .. n - 2
        for (std::size_t j = 0; j < x.shape()[1]; ++j) shuffled(t, j) = x(last - 1 - t, j);
    const auto last_row_change = [&](const forward::decoder<double>& pass, std::size_t layer) {
        const auto a = pass.attention(layer, x), b = pass.attention(layer, shuffled);
        double worst = 0;
        for (std::size_t j = 0; j < a.shape()[1]; ++j) worst = std::max(worst, std::abs(a(last, j) - b(last, j)));
        return worst;
    };
    BOOST_TEST(last_row_change(mixed, 1) < 1e-12);
    BOOST_TEST(last_row_change(mixed, 0) > 1e-3);
    BOOST_TEST(last_row_change(all, 1) > 1e-3);
}

// The whole stack. With layer 0's queries zeroed its pattern is uniform with or without RoPE, so
// the [1, 0] model must give the RoPE-free model's logits exactly, and the all-RoPE model's
// logits differ by layer 1's rotation alone. With layer 0's queries in place, the [1, 0] model
// is neither of the two.
BOOST_AUTO_TEST_CASE(nope_layer_logits_are_those_of_the_layer_without_rope)
{
    const auto quiet = qkov::runs::open_model(tiny_smollm3("nope-quiet", {1, 0}, true));
    const auto logits = forward::decoder<double>(quiet).logits(nope_tokens);
    BOOST_TEST(max_difference(logits, rescheduled(quiet, false).logits(nope_tokens)) < 1e-12);
    BOOST_TEST(max_difference(logits, rescheduled(quiet, true).logits(nope_tokens)) > 1e-3);

    const auto model = qkov::runs::open_model(tiny_smollm3("nope", {1, 0}));
    const auto mixed = forward::decoder<double>(model).logits(nope_tokens);
    BOOST_TEST(max_difference(mixed, rescheduled(model, true).logits(nope_tokens)) > 1e-3);
    BOOST_TEST(max_difference(mixed, rescheduled(model, false).logits(nope_tokens)) > 1e-3);
    // [1, 1] is the all-RoPE model read from the file.
    const auto rotating = qkov::runs::open_model(tiny_smollm3("rope-everywhere", {1, 1}));
    BOOST_TEST(max_difference(forward::decoder<double>(rotating).logits(nope_tokens), rescheduled(model, true).logits(nope_tokens)) == 0.0);
}

namespace {

/// Mean loss (nats) on the second copy of [BOS] + r + r: the predictions of r[1..] from r[0..].
double second_copy_loss(const forward::decoder<double>& pass, const std::vector<token_id>& r, token_id bos)
{
    std::vector<token_id> tokens{bos};
    tokens.insert(tokens.end(), r.begin(), r.end());
    tokens.insert(tokens.end(), r.begin(), r.end());
    const auto logits = pass.logits(tokens);
    const std::size_t n = r.size(), V = logits.shape()[1];
    double total = 0;
    for (std::size_t i = n + 1; i + 1 < tokens.size(); ++i) {  // position i predicts tokens[i + 1], a second-copy token
        double top = -std::numeric_limits<double>::infinity(), sum = 0;
        for (std::size_t j = 0; j < V; ++j) top = std::max(top, logits(i, j));
        for (std::size_t j = 0; j < V; ++j) sum += std::exp(logits(i, j) - top);
        total += top + std::log(sum) - logits(i, tokens[i + 1]);
    }
    return total / double(n - 1);
}

} // namespace

// The trained SmolLM3-style model with a NoPE layer 1 (its README and ground_truth.json): the
// greedy continuation its reference forward pass wrote down, a low loss on a repeated chunk, and
// the README's negative control: RoPE forced into layer 1 (reference second-copy loss 5.30 against
// 0.29) breaks the copying.
BOOST_AUTO_TEST_CASE(trained_nope_layer_model_copies_only_without_rope_in_layer_1)
{
    const auto dir = test::shared_dir_or_skip("trained_models/llama_nope_layer");
    if (dir.empty()) return;
    const auto truth = nlohmann::json::parse(std::ifstream(dir / "ground_truth.json"));
    const auto model = qkov::runs::open_model(dir);
    BOOST_TEST((model.config().rope_layers == std::vector<bool>{true, false}));
    const forward::decoder<double> pass(model);

    const auto& greedy = truth.at("behaviour").at("greedy_continuation");
    const auto prompt = greedy.at("prompt").get<std::vector<token_id>>();
    const auto expected = greedy.at("generated").get<std::vector<token_id>>();
    const auto out = forward::greedy_continuation(pass, prompt, expected.size());
    BOOST_TEST(std::vector<token_id>(out.begin() + std::ptrdiff_t(prompt.size()), out.end()) == expected, boost::test_tools::per_element());

    const auto bos = static_cast<token_id>(truth.at("tokens").at("bos").get<int>());
    const auto forced = rescheduled(model, true);
    double correct = 0, ignored = 0;
    const std::size_t samples = 4;
    for (std::size_t s = 0; s < samples; ++s) {  // r: 50 distinct content tokens (3 .. 511), a fixed stride through them
        std::vector<token_id> r;
        for (std::size_t i = 0; i < 50; ++i) r.push_back(static_cast<token_id>(3 + (97 * (i + 50 * s) + 13 * s) % 509));
        correct += second_copy_loss(pass, r, bos) / samples;
        ignored += second_copy_loss(forced, r, bos) / samples;
    }
    BOOST_TEST_MESSAGE("second-copy loss " << correct << " nats; with RoPE in layer 1 " << ignored);
    BOOST_TEST(correct < 1.0);
    BOOST_TEST(ignored > 3.0);
}
