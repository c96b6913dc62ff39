// qkov::scan against values known by construction (a planted GPT-2-layout model written here),
// against numpy's values in fixtures/models/reference.json and a dense computation on the
// fixtures, and on bad input.
#define BOOST_TEST_MODULE scan
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <xtensor-blas/xlinalg.hpp>

#include "qkov/io/safetensors.hpp"
#include "qkov/io/safetensors_writer.hpp"
#include "qkov/numeric/blas_threads.hpp"
#include "qkov/numeric/parallel_blocks.hpp"
#include "qkov/scan/scan_merge.hpp"
#include "qkov/scan/scan_model.hpp"
#include "qkov/scan/shard_inputs.hpp"
#include "model_runs.hpp"
#include "scan_invariances.hpp"
#include "error_text.hpp"
#include "shared_dir.hpp"
#include "tiny_checkpoint.hpp"

namespace fs = std::filesystem;
using namespace qkov::scan;

namespace {

constexpr std::size_t D = 8, H = 4, d = D / H, L = 2;  // GPT-2 configs give d = n_embd / n_head

using qkov::test::float_tensor;

/// Writes `tensors` as one float32 safetensors file beside a GPT-2 config.json (D = 8, d = 2,
/// 4 heads, 2 layers, V = 8, tied embeddings) and returns the directory.
fs::path write_gpt2(const std::string& name, const std::map<std::string, float_tensor>& tensors)
{
    return qkov::test::write_checkpoint("scan-tests-" + name,
                                        {{"model_type", "gpt2"}, {"architectures", {"GPT2LMHeadModel"}}, {"n_embd", D}, {"n_head", H}, {"n_layer", L},
                                         {"n_positions", 16}, {"vocab_size", D}, {"layer_norm_epsilon", 1e-5}, {"tie_word_embeddings", true}},
                                        tensors);
}

/// One planted head in the column convention: each row of W_q, W_k, W_v and each column of W_o
/// is a multiple of a standard basis vector, given as (index, factor) per head dimension.
struct planted_head {
    std::array<std::pair<std::size_t, float>, d> q, k, v, o;
};

/// The planted model. Head (layer, head): what its circuits are, by construction.
///   L0H0  W_q rows 3 e0, e1; W_k rows 2 e0, 2 e1     QK = 6 e0 e0^T + 2 e1 e1^T
///         W_o cols 2 e2, e3; W_v rows e2, e3         OV = 2 e2 e2^T + e3 e3^T
///   L0H1  W_q rows e0, 0 (rank 1); W_k rows e1, e2   QK = e0 e1^T
///         W_o cols e4, -e5; W_v rows e4, e5          OV = e4 e4^T - e5 e5^T
///   L1H0  W_q rows e2, e6; W_k rows e7, e0           QK = e2 e7^T + e6 e0^T
///         W_o cols e6, e7; W_v rows e2, e3           OV = e6 e2^T + e7 e3^T
///   L1H1  W_q rows e4, e5; W_k rows e3, e1           QK = e4 e3^T + e5 e1^T
///         W_o cols e0, e1; W_v rows e4, e1           OV = e0 e4^T + e1 e1^T
/// Heads 2 and 3 of each layer are zero.
const planted_head planted[L][H] = {
    {{{{{0, 3}, {1, 1}}}, {{{0, 2}, {1, 2}}}, {{{2, 1}, {3, 1}}}, {{{2, 2}, {3, 1}}}},
     {{{{0, 1}, {0, 0}}}, {{{1, 1}, {2, 1}}}, {{{4, 1}, {5, 1}}}, {{{4, 1}, {5, -1}}}}},
    {{{{{2, 1}, {6, 1}}}, {{{7, 1}, {0, 1}}}, {{{2, 1}, {3, 1}}}, {{{6, 1}, {7, 1}}}},
     {{{{4, 1}, {5, 1}}}, {{{3, 1}, {1, 1}}}, {{{4, 1}, {1, 1}}}, {{{0, 1}, {1, 1}}}}},
};

/// The planted model's tensors in GPT-2's Conv1D layout ([in, out]), embedding W_E = I_8.
std::map<std::string, float_tensor> planted_tensors()
{
    std::map<std::string, float_tensor> t;
    float_tensor wte{{D, D}, std::vector<float>(D * D, 0.0f)};
    for (std::size_t i = 0; i < D; ++i) wte.values[i * D + i] = 1;
    t["wte.weight"] = wte;
    for (std::size_t l = 0; l < L; ++l) {
        const std::string p = "h." + std::to_string(l) + ".";
        float_tensor qkv{{D, 3 * D}, std::vector<float>(D * 3 * D, 0.0f)}, proj{{D, D}, std::vector<float>(D * D, 0.0f)};
        for (std::size_t h = 0; h < H; ++h)
            for (std::size_t i = 0; i < d; ++i) {
                const auto& ph = planted[l][h];
                // Column h d + i of [W_Q | W_K | W_V] is row i of the head's W_q (W_k, W_v).
                qkv.values[ph.q[i].first * 3 * D + h * d + i] = ph.q[i].second;
                qkv.values[ph.k[i].first * 3 * D + D + h * d + i] = ph.k[i].second;
                qkv.values[ph.v[i].first * 3 * D + 2 * D + h * d + i] = ph.v[i].second;
                // Row h d + i of c_proj is column i of the head's W_o.
                proj.values[(h * d + i) * D + ph.o[i].first] = ph.o[i].second;
            }
        t[p + "attn.c_attn.weight"] = qkv;
        t[p + "attn.c_proj.weight"] = proj;
        t[p + "ln_1.weight"] = {{D}, std::vector<float>(D, 1.0f)};
        t[p + "ln_1.bias"] = {{D}, std::vector<float>(D, 0.0f)};
    }
    return t;
}

const head_metrics& head_at(const scan_result& r, std::size_t layer, std::size_t head)
{
    for (const auto& h : r.heads)
        if (h.layer == layer && h.head == head) return h;
    BOOST_FAIL("no head L" << layer << "H" << head << " in the scan");
    throw;
}

const composition_score& find_pair(const scan_result& r, std::size_t sl, std::size_t sh, std::size_t tl, std::size_t th)
{
    for (const auto& c : r.composition)
        if (c.source_layer == sl && c.source_head == sh && c.target_layer == tl && c.target_head == th) return c;
    BOOST_FAIL("no composition pair");
    throw;
}

void check_values(const vector& got, std::vector<double> expected, double tolerance = 1e-12)
{
    BOOST_TEST_REQUIRE(got.size() == expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) BOOST_TEST(std::abs(got(i) - expected[i]) <= tolerance, "value " << i << ": " << got(i) << " vs " << expected[i]);
}

using qkov::test::error_of;

} // namespace

BOOST_AUTO_TEST_CASE(planted_head_metrics)
{
    const auto model = qkov::runs::open_model(write_gpt2("planted", planted_tensors()));
    const auto r = qkov::runs::scan_model(model);
    BOOST_TEST_REQUIRE(r.heads.size() == L * H);
    BOOST_TEST(r.copying_available);

    const auto& a = head_at(r, 0, 0);
    BOOST_TEST(a.q.rank == 2u);
    BOOST_TEST(a.k.rank == 2u);
    BOOST_TEST_REQUIRE(a.q.condition.has_value());
    BOOST_TEST(std::abs(*a.q.condition - 3.0) < 1e-12);
    BOOST_TEST(std::abs(*a.k.condition - 1.0) < 1e-12);
    check_values(a.qk.singular_values, {6, 2});
    check_values(a.ov.singular_values, {2, 1});
    BOOST_TEST(std::abs(a.ov_identity_distance - std::sqrt(7.0)) < 1e-12);  // (2 - 1)^2 + (1 - 1)^2 + the 6 unread directions
    BOOST_TEST(std::abs(a.ov_identity_floor - std::sqrt(6.0)) < 1e-12);
    BOOST_TEST_REQUIRE(a.copying_score.has_value());
    BOOST_TEST(std::abs(*a.copying_score - 1.0) < 1e-12);  // eigenvalues 2 and 1 of W_v W_o
    BOOST_TEST(a.qk.residual < 1e-14);
    BOOST_TEST(a.ov.residual < 1e-14);
    BOOST_TEST(a.qk.driver == "gesdd");

    const auto& b = head_at(r, 0, 1);
    BOOST_TEST(b.q.rank == 1u);  // the second row of W_q is zero
    BOOST_TEST(!b.q.condition.has_value());
    BOOST_TEST(b.k.rank == 2u);
    check_values(b.qk.singular_values, {1, 0});
    check_values(b.ov.singular_values, {1, 1});
    BOOST_TEST(std::abs(b.ov_identity_distance - std::sqrt(10.0)) < 1e-12);  // (1 - 1)^2 + (-1 - 1)^2 + 6
    BOOST_TEST_REQUIRE(b.copying_score.has_value());
    BOOST_TEST(std::abs(*b.copying_score) < 1e-12);  // eigenvalues 1 and -1

    const auto& c = head_at(r, 1, 0);
    check_values(c.qk.singular_values, {1, 1});
    BOOST_TEST(std::abs(c.ov_identity_distance - std::sqrt(10.0)) < 1e-12);  // trace 0: 2 + 8
    BOOST_TEST(!c.copying_score.has_value());  // W_v W_o = 0: no eigenvalue to score

    const auto& e = head_at(r, 1, 1);
    BOOST_TEST(std::abs(e.ov_identity_distance - std::sqrt(8.0)) < 1e-12);  // ||OV||^2 = 2, trace 1: 2 - 2 + 8
    BOOST_TEST_REQUIRE(e.copying_score.has_value());
    BOOST_TEST(std::abs(*e.copying_score - 1.0) < 1e-12);  // eigenvalues 0 and 1

    const auto& zero = head_at(r, 1, 3);
    BOOST_TEST(zero.q.rank == 0u);
    BOOST_TEST(!zero.q.condition.has_value());
    check_values(zero.qk.singular_values, {0, 0});
    BOOST_TEST(!zero.copying_score.has_value());
    BOOST_TEST(std::abs(zero.ov_identity_distance - std::sqrt(8.0)) < 1e-12);  // ||0 - I||_F
}

BOOST_AUTO_TEST_CASE(planted_composition)
{
    const auto r = qkov::runs::scan_model(qkov::runs::open_model(write_gpt2("planted", planted_tensors())));
    BOOST_TEST_REQUIRE(r.composition.size() == H * H);  // only pairs in different layers, earlier to later
    const auto& from_zero = find_pair(r, 0, 2, 1, 1);
    BOOST_TEST(from_zero.q == 0.0);  // a zero circuit composes with nothing (0, not NaN)
    BOOST_TEST(from_zero.v == 0.0);
    // Row convention OV_s QK_t etc.; the norms follow from the basis structure (see `planted`).
    const auto& aa = find_pair(r, 0, 0, 1, 0);
    BOOST_TEST(std::abs(aa.q - 2 / std::sqrt(10.0)) < 1e-12);  // ||2 e2 e7^T|| / (sqrt 5 sqrt 2)
    BOOST_TEST(std::abs(aa.k) < 1e-12);
    BOOST_TEST(std::abs(aa.v - 1 / std::sqrt(2.0)) < 1e-12);  // ||2 e6 e2^T + e7 e3^T|| / (sqrt 5 sqrt 2)
    check_values(aa.t3_singular_values(), {2, 1});
    const auto& ab = find_pair(r, 0, 0, 1, 1);
    BOOST_TEST(std::abs(ab.q) < 1e-12);
    BOOST_TEST(std::abs(ab.k - 1 / std::sqrt(10.0)) < 1e-12);  // ||e3 e4^T|| / (sqrt 5 sqrt 2)
    BOOST_TEST(std::abs(ab.v) < 1e-12);
    check_values(ab.t3_singular_values(), {0, 0});
    const auto& ba = find_pair(r, 0, 1, 1, 0);
    BOOST_TEST(std::abs(ba.q) + std::abs(ba.k) + std::abs(ba.v) < 1e-12);
    const auto& bb = find_pair(r, 0, 1, 1, 1);
    BOOST_TEST(std::abs(bb.q - 1 / std::sqrt(2.0)) < 1e-12);  // ||e4 e3^T - e5 e1^T|| / (sqrt 2 sqrt 2)
    BOOST_TEST(std::abs(bb.k) < 1e-12);
    BOOST_TEST(std::abs(bb.v - 0.5) < 1e-12);  // ||e0 e4^T|| / (sqrt 2 sqrt 2)
    check_values(bb.t3_singular_values(), {1, 0});

    const auto top = strongest_targets(r.composition, 0, 0, &composition_score::v, 1);
    BOOST_TEST_REQUIRE(top.size() == 1u);
    BOOST_TEST(top[0]->target_head == 0u);
}

BOOST_AUTO_TEST_CASE(layer_range)
{
    const auto model = qkov::runs::open_model(write_gpt2("planted", planted_tensors()));
    scan_options o;
    o.first_layer = 1;
    std::vector<std::size_t> seen;
    o.on_layer = [&](std::size_t l, const std::vector<head_metrics>& m, const layer_timing& t) {
        seen.push_back(l);
        BOOST_TEST(t.layer == l);
        BOOST_TEST(m.size() == H);
    };
    const auto r = qkov::runs::scan_model(model, o);
    BOOST_TEST(r.heads.size() == H);
    // Every pair whose later head is in layer 1: layer 0 is read for what its heads write.
    BOOST_TEST(r.composition.size() == H * H);
    for (const auto& c : r.composition) BOOST_TEST((c.source_layer == 0 && c.target_layer == 1));
    BOOST_TEST(seen == std::vector<std::size_t>{1});
    o.first_layer = 0, o.last_layer = 2;
    const auto message = error_of([&] { qkov::runs::scan_model(model, o); });
    BOOST_TEST(message.find("layers 0-2 are not within 0-1") != std::string::npos, message);
}

BOOST_AUTO_TEST_CASE(without_embedding_no_copying_score)
{
    auto t = planted_tensors();
    t.erase("wte.weight");
    const auto r = qkov::runs::scan_model(qkov::runs::open_model(write_gpt2("no-wte", t)));
    BOOST_TEST(!r.copying_available);
    for (const auto& h : r.heads) BOOST_TEST(!h.copying_score.has_value());
}

/// The vocabulary read in blocks of rows (token_side.hpp) against the whole matrices: G to
/// rounding (the blocks sum in another order). The constant-reading sample (embedding_sample.hpp)
/// exactly: every stride-th row of W_E through the layer's norm, the same bits in blocks of 1, 2
/// or 4,096 rows as the whole sample through the norm at once. Blocks of 3 rows and a sample of at
/// most 3 rows split the planted model's V = 8 unevenly; the fixtures add an untied unembedding
/// (GPT-NeoX's embed_out) and a larger vocabulary.
BOOST_AUTO_TEST_CASE(token_side_in_blocks_matches_whole_matrices)
{
    std::vector<fs::path> models{write_gpt2("planted", planted_tensors())};
    for (const char* name : {"gpt2", "gpt_neox", "llama"})
        if (auto dir = qkov::test::shared_dir_or_skip(std::string("fixtures/models/") + name); !dir.empty()) models.push_back(dir);
    for (const auto& dir : models)
        BOOST_TEST_CONTEXT("model " << dir)
        {
            const auto m = qkov::runs::open_model(dir);
            const matrix e = *m.embedding(), u = *m.unembedding();
            const bool tied = m.unembedding_presence() == qkov::model::attention_model::presence::tied;
            const matrix whole = tied ? token_gram(e) : token_circuit(e, u);
            for (std::size_t block : {3, 4096}) {
                const auto side = read_token_side(m, block);
                BOOST_TEST_REQUIRE(side.tokens.has_value());
                const double scale = xt::amax(xt::abs(whole))();
                BOOST_TEST(xt::amax(xt::abs(side.tokens->g - whole))() <= 1e-13 * scale);
                BOOST_TEST(xt::amax(xt::abs(side.tokens->mean_embedding - xt::mean(e, {0})))() <= 1e-15 * (1 + xt::amax(xt::abs(e))()));
                BOOST_TEST(xt::amax(xt::abs(side.tokens->mean_unembedding - xt::mean(u, {0})))() <= 1e-15 * (1 + xt::amax(xt::abs(u))()));
                BOOST_TEST(side.vocabulary == e.shape()[0]);
            }
            const std::size_t V = e.shape()[0], stride = sample_stride(V, 3);
            const auto sample = sample_embedding(m, 3);
            BOOST_TEST_REQUIRE(sample.rows == (V + stride - 1) / stride);
            BOOST_TEST_REQUIRE(sample.rows <= 3u);
            const auto norm = m.layer(m.config().layers - 1).norm;
            matrix strided = xt::empty<double>({sample.rows, e.shape()[1]});
            for (std::size_t i = 0; i < sample.rows; ++i) xt::view(strided, i, xt::all()) = xt::view(e, i * stride, xt::all());
            const matrix expected = through_norm(norm, strided);
            for (std::size_t block : {1, 2, 4096}) {
                std::size_t seen = 0;
                sample.for_each_normed_block(
                    norm,
                    [&](std::size_t first, const matrix& rows) {
                        BOOST_TEST_REQUIRE(first == seen);
                        BOOST_TEST((rows == xt::view(expected, xt::range(first, first + rows.shape()[0]), xt::all())));
                        seen += rows.shape()[0];
                    },
                    block);
                BOOST_TEST(seen == sample.rows);
            }
            // One pass reads every direction's projections and the mean row: against the whole
            // sample through the norm, the projections exactly (a single nonzero coordinate
            // each), the mean to rounding (xt::mean may sum in another order).
            const std::size_t D = e.shape()[1];
            vector first = xt::zeros<double>({D}), second = xt::zeros<double>({D});
            first(0) = 1, second(D - 1) = -0.5;
            const auto read = read_through_norm(sample, norm, {first, second});
            BOOST_TEST_REQUIRE(read.projections.size() == 2u);
            for (std::size_t i = 0; i < sample.rows; ++i) {
                BOOST_TEST(read.projections[0][i] == expected(i, 0));
                BOOST_TEST(read.projections[1][i] == -0.5 * expected(i, D - 1));
            }
            const vector mean = xt::mean(expected, {0});
            BOOST_TEST(xt::amax(xt::abs(read.mean - mean))() <= 1e-14 * (1 + xt::amax(xt::abs(expected))()));
        }
    // The planted model's V = 8 rows under a limit of 3: rows 0, 3 and 6, stated here rather than
    // derived from sample_stride.
    const auto m = qkov::runs::open_model(models.front());
    const auto planted = sample_embedding(m, 3);
    const matrix e = *m.embedding();
    BOOST_TEST_REQUIRE(planted.rows == 3u);
    BOOST_TEST(planted.stride == 3u);
    qkov::model::norm_weights identity;  // RMSNorm with unit weight: each row over its own root mean square
    identity.weight = xt::ones<double>({e.shape()[1]});
    planted.for_each_normed_block(
        identity,
        [&](std::size_t, const matrix& rows) {
            for (std::size_t i = 0; i < 3; ++i) {
                double square = 0;
                for (std::size_t j = 0; j < e.shape()[1]; ++j) square += e(3 * i, j) * e(3 * i, j);
                const double rms = std::sqrt(square / static_cast<double>(e.shape()[1]) + identity.eps);
                for (std::size_t j = 0; j < e.shape()[1]; ++j) BOOST_TEST(rows(i, j) == e(3 * i, j) / rms, boost::test_tools::tolerance(1e-14));
            }
        },
        4096);
    const auto message = error_of([&] { (void)m.embedding_rows(6, 3); });
    BOOST_TEST(qkov::test::contains(message, "rows 6 to 9 of wte.weight, which has 8"), message);
}

/// The per-token tally takes a vocabulary token at a time across a run of tokens read; here against
/// its definition, each token read's row walked in vocabulary order: the number of other tokens at
/// or above its own logit, below it, the best other, and the row's sums shifted by the own logit.
/// The logits are small integers, so ties with the own logit are many; the runs of tokens read and
/// the vocabulary blocks are uneven, and the own logit is sometimes not the row's own entry (the
/// read-out of the token's own row is a different product, which may round differently).
BOOST_AUTO_TEST_CASE(copying_tally_matches_its_definition_row_by_row)
{
    constexpr std::size_t T = 11, V = 37;
    std::vector<std::size_t> read(T);
    std::vector<double> logits(T * V), own(T);  // logits[i * V + j]: row i, vocabulary token j
    for (std::size_t i = 0; i < T; ++i) {
        read[i] = i * 3 + 1 + (i > 5 ? 2 : 0);  // ascending, as copying_tokens gives them
        for (std::size_t j = 0; j < V; ++j) logits[i * V + j] = static_cast<double>((i * 13 + j * 5) % 9) - 4.0;
        own[i] = logits[i * V + read[i]] + (i % 3 == 0 ? 0.5 : 0.0);
    }
    qkov::scan::detail::copying_tally tally(own);
    std::vector<double> column(T);
    for (std::size_t first = 0, n = 5; first < V; first += n, n = n % 4 + 7)  // blocks of 5, 8, 7, 10, ...
        for (std::size_t i0 = 0, m = 4; i0 < T; i0 += m, m = 3) {
            const std::size_t run = std::min(m, T - i0);
            for (std::size_t j = first; j < std::min(first + n, V); ++j) {
                for (std::size_t i = 0; i < run; ++i) column[i] = logits[(i0 + i) * V + j];
                tally.add(j, i0, run, column.data(), read.data() + i0);
            }
        }
    for (std::size_t i = 0; i < T; ++i) {
        BOOST_TEST_CONTEXT("token read " << i)
        {
            std::size_t above = 0, below = 0;
            double best = -INFINITY, sum = 0, square = 0;
            for (std::size_t j = 0; j < V; ++j) {
                const double x = logits[i * V + j], shifted = x - own[i];
                sum += shifted, square += shifted * shifted;
                if (j == read[i]) continue;
                above += x >= own[i] ? 1 : 0, below += x < own[i] ? 1 : 0, best = std::max(best, x);
            }
            BOOST_TEST(tally.above[i] == static_cast<double>(above));
            BOOST_TEST(tally.below[i] == static_cast<double>(below));
            BOOST_TEST(tally.above[i] + tally.below[i] == static_cast<double>(V - 1));
            BOOST_TEST(tally.best_other[i] == best);
            BOOST_TEST(tally.shifted_sum[i] == sum);
            BOOST_TEST(tally.shifted_square[i] == square);
        }
    }
}

/// product_precision.hpp's pieces at their edges: float32 conversion beyond the range (infinite,
/// never undefined) and of NaN, gamma_n and its refusal where n u reaches 1/2, the names.
BOOST_AUTO_TEST_CASE(float32_conversion_and_gamma_at_their_edges)
{
    const double largest = std::numeric_limits<float>::max();
    BOOST_TEST(to_float32(largest) == std::numeric_limits<float>::max());
    BOOST_TEST(to_float32(1e39) == std::numeric_limits<float>::infinity());
    BOOST_TEST(to_float32(-1e39) == -std::numeric_limits<float>::infinity());
    BOOST_TEST(std::isnan(to_float32(std::nan(""))));
    BOOST_TEST(to_float32(0.1) == 0.1f);
    const double u = std::ldexp(1.0, -24);
    BOOST_TEST(gamma_bound<float>(256) == 256 * u / (1 - 256 * u));
    BOOST_TEST(gamma_bound<double>(4096) == 4096 * std::ldexp(1.0, -53) / (1 - 4096 * std::ldexp(1.0, -53)));
    BOOST_CHECK_THROW(gamma_bound<float>(std::size_t{1} << 23), std::invalid_argument);  // n u = 1/2
    BOOST_TEST((precision_named("float32") == std::optional(product_precision::float32)));
    BOOST_TEST((precision_named("float64") == std::optional(product_precision::float64)));
    BOOST_TEST(!precision_named("float16").has_value());
    BOOST_TEST(precision_name(product_precision::float32) == "float32");
}

/// The float32 tally's counting by hand (token_copying.hpp's copying_tally with a bound): an entry
/// counts above its row's own logit only when above by at least the bound, below only when below by
/// more, NaN neither; a token read is undecided exactly when the open entries could change its
/// top-1, top-5 or bottom-10 decision.
BOOST_AUTO_TEST_CASE(copying_tally_counts_only_what_the_bound_decides)
{
    constexpr std::size_t V = 20;
    const std::vector<std::size_t> read{0, 1, 2};  // the tokens read, ascending; own logits 0
    detail::copying_tally tally(std::vector<double>(3, 0.0));
    const std::vector<double> ones(3, 1.0);
    const detail::copying_tally::entry_bound bound{0.0, 0.0, 0.5, ones.data(), ones.data()};  // e = 0.5 for every entry
    // Row i's k-th other token (the vocabulary without i): `above` of them at 1 (or exactly at the
    // bound, 0.5, for the first), one open entry, the rest at -1.
    const std::size_t above[3] = {4, 5, 9};
    const double open[3] = {0.2, std::nan(""), -0.5};  // -0.5 is not below by more than 0.5
    std::vector<std::vector<double>> row(3, std::vector<double>(V, 0.0));
    for (std::size_t i = 0; i < 3; ++i)
        for (std::size_t v = 0, k = 0; v < V; ++v) {
            if (v == i) continue;  // its own entry, 0
            row[i][v] = k < above[i] ? (k == 0 ? 0.5 : 1.0) : k == above[i] ? open[i] : -1.0;
            ++k;
        }
    for (std::size_t v = 0; v < V; ++v) {
        const double logits[3] = {row[0][v], row[1][v], row[2][v]};
        tally.add(v, 0, 3, logits, read.data(), &bound);
    }
    BOOST_TEST(tally.above == std::vector<double>({4, 5, 9}), boost::test_tools::per_element());
    BOOST_TEST(tally.below == std::vector<double>({14, 13, 9}), boost::test_tools::per_element());
    // Token 0: 4 or 5 above decides top-5 either way: open. Token 1: 5 or 6 above and 13 or 14
    // below decide nothing differently. Token 2: 9 or 10 below: bottom-10 open.
    BOOST_TEST(tally.undecided_tokens(V) == std::vector<std::size_t>({0, 2}), boost::test_tools::per_element());
    // Token 2's open entry decided (as the float64 recount does): below, and nothing is open.
    tally.below[2] += 1;
    BOOST_TEST(tally.undecided_tokens(V) == std::vector<std::size_t>({0}), boost::test_tools::per_element());
    tally.above = {0, 5, 9};  // token 0 with nothing above: the top-1 of its row
    BOOST_TEST(detail::copying_of(tally, V).top1 == std::vector<bool>({true, false, false}), boost::test_tools::per_element());
}

/// add_column_sums (scan/column_sums.hpp): block by block, the sums of xtensor's reduction to the bit.
BOOST_AUTO_TEST_CASE(column_sums_in_blocks_are_the_rows_sums)
{
    matrix first = {{1.0, 2.0, 3.0}, {4.0, 5.0, 6.0}}, second = {{7.0, 8.0, 10.0}};
    vector total = xt::zeros<double>({3});
    add_column_sums(total, first);
    add_column_sums(total, second);
    BOOST_TEST(total(0) == 12.0);
    BOOST_TEST(total(1) == 15.0);
    BOOST_TEST(total(2) == 19.0);
    vector narrow = xt::zeros<double>({2});
    BOOST_CHECK_THROW(add_column_sums(narrow, first), std::invalid_argument);
    // Inexact doubles in blocks: the bits of xtensor's sum over axis 0 added to the total block by
    // block (the order the scan's documents were made in), so no document changes.
    std::mt19937 random(7);
    std::normal_distribution<double> normal(0.0, 1.0);
    vector ours = xt::zeros<double>({5}), xtensors = xt::zeros<double>({5});
    for (std::size_t rows : {std::size_t{3}, std::size_t{17}, std::size_t{1}, std::size_t{64}}) {
        matrix block = xt::empty<double>({rows, std::size_t{5}});
        for (auto& x : block) x = normal(random) * std::pow(10.0, static_cast<double>(random() % 12));
        add_column_sums(ours, block);
        xtensors += xt::sum(block, {0});
    }
    for (std::size_t j = 0; j < 5; ++j) BOOST_TEST(ours(j) == xtensors(j));
    // The proxy pass's mean embedding, read in blocks of 3 rows, against xtensor's mean of the whole
    // embedding.
    const auto dir = qkov::test::shared_dir_or_skip("fixtures/models/llama");
    if (dir.empty()) return;
    const auto m = qkov::runs::open_model(dir);
    const auto mean = mean_token_embedding(m, 3);
    BOOST_TEST_REQUIRE(mean.has_value());
    const vector whole = xt::mean(*m.embedding(), {0});
    BOOST_TEST_REQUIRE(mean->size() == whole.size());
    for (std::size_t j = 0; j < whole.size(); ++j) BOOST_TEST((*mean)(j) == whole(j), boost::test_tools::tolerance(1e-12));
}

/// The tally's loop and the float32 runs' float64 sums, dispatched (AVX2 where the processor has
/// it, avx2_dispatch.hpp), give the baseline loops' bits: with and without a bound, float and
/// double entries, NaN, infinities and ties, 1,031 entries (no multiple of any vector's width, so
/// every tail runs). On a processor without AVX2 both sides are the baseline loop.
template <class X>
void check_tally_loops_agree(bool bounded)
{
    constexpr std::size_t n = 1031;
    std::mt19937 gen(41);
    std::uniform_real_distribution<double> uniform(-3, 3);
    std::vector<X> x(n);
    std::vector<double> own(n), w(n), norm(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = X(uniform(gen)), own[i] = std::round(uniform(gen)), w[i] = uniform(gen) + 3, norm[i] = uniform(gen) + 3;
    for (std::size_t i = 0; i < n; i += 7) x[i] = X(own[i]);  // ties
    x[3] = std::numeric_limits<X>::quiet_NaN(), x[5] = std::numeric_limits<X>::infinity(), x[6] = -std::numeric_limits<X>::infinity();
    w[9] = std::numeric_limits<double>::quiet_NaN();
    const detail::copying_tally::entry_bound bound{1e-3, 2e-3, 1e-4, w.data(), norm.data()};
    const detail::copying_tally::entry_bound* b = bounded ? &bound : nullptr;
    std::vector<std::vector<double>> dispatched(5, std::vector<double>(n, 0.5)), baseline = dispatched;  // sum, square, above, below, best
    dispatched[4].assign(n, -INFINITY), baseline[4].assign(n, -INFINITY);
    for (int pass = 0; pass < 2; ++pass) {  // twice: the sums and counts carry over
        auto* d = dispatched.data();
        auto* e = baseline.data();
        detail::copying_tally::count_others(n, x.data(), own.data(), d[0].data(), d[1].data(), d[2].data(), d[3].data(), d[4].data(), b);
        detail::copying_tally::count_others_here(n, x.data(), own.data(), e[0].data(), e[1].data(), e[2].data(), e[3].data(), e[4].data(), b);
    }
    for (std::size_t k = 0; k < 5; ++k)
        BOOST_TEST(std::memcmp(dispatched[k].data(), baseline[k].data(), n * sizeof(double)) == 0, "array " << k << (bounded ? ", bounded" : ""));
    BOOST_TEST((dispatched[2][3] == 0.5 && dispatched[3][3] == 0.5), "a NaN entry counts neither above nor below");
}

BOOST_AUTO_TEST_CASE(dispatched_tally_and_run_sums_match_the_baseline_loops_bit_for_bit)
{
    for (const bool bounded : {false, true}) {
        check_tally_loops_agree<float>(bounded);
        check_tally_loops_agree<double>(bounded);
    }
    constexpr std::size_t n = 1031;
    std::mt19937 gen(43);
    std::uniform_real_distribution<float> uniform(-1e3f, 1e3f);
    std::vector<float> run(n);
    for (auto& v : run) v = uniform(gen);
    run[2] = std::numeric_limits<float>::quiet_NaN();
    std::vector<double> dispatched(n, 0.1), baseline(n, 0.1);
    detail::add_run(n, run.data(), dispatched.data());
    detail::add_run_here(n, run.data(), baseline.data());
    BOOST_TEST(std::memcmp(dispatched.data(), baseline.data(), n * sizeof(double)) == 0);
    BOOST_TEST(dispatched[1] == 0.1 + double(run[1]));
}

/// The per-token copying (token_copying.hpp) reads some of the tokens at a time and lets the query
/// heads of a GQA group share their values: neither may change a bit of the result. Against the
/// same layer read with every token at once and with each head's values made its own (its kv_head
/// set apart, so nothing is shared). The fixtures: Llama with 4 heads on 2 key/value heads, GPT-2
/// with its final LayerNorm (the centred read-out).
BOOST_AUTO_TEST_CASE(per_token_copying_independent_of_its_chunks_and_sharing)
{
    for (const char* name : {"llama", "gpt2"}) {
        const auto dir = qkov::test::shared_dir_or_skip(std::string("fixtures/models/") + name);
        if (dir.empty()) continue;
        BOOST_TEST_CONTEXT("fixture " << name)
        {
            const auto m = qkov::runs::open_model(dir);
            auto evidence = read_model_evidence(m, {});
            BOOST_TEST_REQUIRE(evidence.readout.has_value());
            const std::size_t last = m.config().layers - 1;
            evidence.advance_to(last);
            const auto heads = m.layer(last).heads;
            auto apart = heads;
            for (auto& h : apart) h.kv_head = h.head + 1000;
            const std::size_t T = evidence.readout->tokens.size();
            const auto reference = copying_per_token(apart, *evidence.readout, *evidence.pass.decoder, 2048, T);
            // The tally bisects the tokens read: out of order, or repeated, they are refused.
            auto shuffled = *evidence.readout;
            BOOST_TEST_REQUIRE(T >= 2u);
            std::swap(shuffled.tokens[0], shuffled.tokens[1]);
            BOOST_CHECK_THROW(copying_per_token(heads, shuffled, *evidence.pass.decoder), std::invalid_argument);
            shuffled.tokens[0] = shuffled.tokens[1];
            BOOST_CHECK_THROW(copying_per_token(heads, shuffled, *evidence.pass.decoder), std::invalid_argument);
            BOOST_TEST_REQUIRE(reference.size() == heads.size());
            // One or two tokens at a time would go to BLAS's paths for tiny products, which sum in
            // another order; they are padded to three, so every chunk gives the same bits.
            for (std::size_t chunk : {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{7}, T})
                BOOST_TEST_CONTEXT("tokens at once " << chunk)
                {
                    const auto got = copying_per_token(heads, *evidence.readout, *evidence.pass.decoder, 2048, chunk);
                    BOOST_TEST_REQUIRE(got.size() == reference.size());
                    for (std::size_t h = 0; h < got.size(); ++h) {
                        BOOST_TEST(got[h].tokens == T);
                        BOOST_TEST(got[h].top1 == reference[h].top1);
                        BOOST_TEST(got[h].top1_share == reference[h].top1_share);
                        BOOST_TEST(got[h].top5_share == reference[h].top5_share);
                        BOOST_TEST(got[h].bottom10_share == reference[h].bottom10_share);
                        BOOST_TEST(got[h].median_margin == reference[h].median_margin);
                    }
                }
        }
    }
}

/// The float32 per-token copying (product_precision.hpp, token_copying.hpp): every logit of the
/// float32 products lies within its stated bound of the float64 product's, and the decisions
/// (top-1 per token, the top-1, top-5 and bottom-10 shares) are the float64 path's. On the fixtures
/// and stories260K (every token of its 512 read): some decisions fall inside the bound, those
/// tokens are recomputed, and some must be. Margins are the float32 rows' own: compared
/// within a tolerance (validation, not part of the claim).
BOOST_AUTO_TEST_CASE(float32_copying_is_bounded_and_decides_as_float64)
{
    std::vector<fs::path> dirs;  // models with a forward pass and a read-out
    for (const char* name : {"fixtures/models/llama", "fixtures/models/gpt2"})
        if (const auto dir = qkov::test::shared_dir_or_skip(name); !dir.empty()) dirs.push_back(dir);
    const auto stories = qkov::test::shared_dir_or_skip("real_models/llama2c-stories260K/hf");
    if (!stories.empty()) dirs.push_back(stories);
    std::size_t recomputed = 0, recomputed_in_blocks = 0, entries = 0;
    double worst = 0;  // the largest |x32 - x64| / bound seen
    for (const auto& dir : dirs)
        BOOST_TEST_CONTEXT("model " << dir.filename())
        {
            const auto m = qkov::runs::open_model(dir);
            auto evidence = read_model_evidence(m, {});
            BOOST_TEST_REQUIRE(evidence.readout.has_value());
            const auto& r = *evidence.readout;
            const std::size_t T = r.tokens.size();
            for (std::size_t l = 0; l < m.config().layers; ++l) {
                evidence.advance_to(l);
                const auto heads = m.layer(l).heads;
                const auto f64 = copying_per_token(heads, r, *evidence.pass.decoder, 512, 512, nullptr, product_precision::float64);
                const auto f32 = copying_per_token(heads, r, *evidence.pass.decoder, 512, 512, nullptr, product_precision::float32);
                // Blocks of 48 rows: a token's open entries spread over several blocks, each
                // recounted where they are (stories260K's 512 rows make 11 blocks).
                const auto f32_blocks = copying_per_token(heads, r, *evidence.pass.decoder, 48, 512, nullptr, product_precision::float32);
                for (std::size_t h = 0; h < heads.size(); ++h)
                    BOOST_TEST_CONTEXT("layer " << l << " head " << h)
                    {
                        for (const auto* got : {&f32[h], &f32_blocks[h]}) {
                            BOOST_TEST(got->top1 == f64[h].top1);
                            BOOST_TEST(got->top1_share == f64[h].top1_share);
                            BOOST_TEST(got->top5_share == f64[h].top5_share);
                            BOOST_TEST(got->bottom10_share == f64[h].bottom10_share);
                            BOOST_TEST(got->median_margin == f64[h].median_margin, boost::test_tools::tolerance(1e-3));
                        }
                        recomputed += f32[h].recomputed;
                        recomputed_in_blocks += f32_blocks[h].recomputed;
                    }
                // A block's counts are kept in 16 bits; a block holds at least one row.
                BOOST_CHECK_THROW(copying_per_token(heads, r, *evidence.pass.decoder, 70000, 512, nullptr, product_precision::float32), std::invalid_argument);
                BOOST_CHECK_THROW(copying_per_token(heads, r, *evidence.pass.decoder, 0, 512, nullptr, product_precision::float64), std::invalid_argument);
                if (r.centres) continue;  // the bound's own check below reads W_o as it is (RMSNorm: C = I)
                // Every entry of the first block: the float32 logit against the float64 one.
                const matrix& x = r.effective.rows.at(l);
                evidence.pass.decoder->for_each_output_block(
                    [&](std::size_t first, const qkov::numeric::tensor2<double>& block) {
                        if (first != 0) return;
                        matrix rows = block;
                        scale_columns(rows, r.scale);
                        const std::size_t n = rows.shape()[0], D = rows.shape()[1];
                        const auto rows32 = to_float32(rows.data(), rows.size());
                        const auto norms = detail::row_norms(rows.data(), n, D);
                        for (const auto& head : heads) {
                            const std::size_t d = head.w_o.shape()[1];
                            matrix values = multiply(x, head.w_v, false, true);
                            for (std::size_t i = 0; i < T && head.b_v.size(); ++i)
                                for (std::size_t c = 0; c < d; ++c) values(i, c) += head.b_v(c);
                            const auto values32 = to_float32(values.data(), values.size());
                            const auto f = detail::float32_head_of(head.w_o, values, values32);
                            const auto out = detail::float32_read_out(n, D, d, rows32.data(), f);
                            const auto out_norms = detail::row_norms(out.data(), n, d);
                            std::vector<float> logits32(n * T);
                            multiply_into(n, T, d, out.data(), d, false, values32.data(), d, true, logits32.data(), T);
                            const matrix logits64 = multiply(multiply(rows, head.w_o), values, false, true);
                            const detail::float32_bound_constants constants(D, d);
                            for (std::size_t i = 0; i < n; ++i) {
                                const auto b = constants.row(norms[i], out_norms[i], f);
                                for (std::size_t t = 0; t < T; ++t, ++entries) {
                                    const double e = b.a * b.w[t] + b.b * b.n[t] + b.c;
                                    const double gap = std::abs(static_cast<double>(logits32[i * T + t]) - logits64(i, t));
                                    BOOST_TEST_REQUIRE(gap <= e, "entry (" << first + i << ", " << t << "): |x32 - x64| = " << gap << " > bound " << e);
                                    worst = std::max(worst, gap / e);
                                }
                            }
                        }
                    },
                    512);
            }
        }
    if (dirs.empty()) return;
    BOOST_TEST_MESSAGE("float32 copying: " << recomputed << " tokens recomputed in float64; " << entries << " entries within their bound, the closest at "
                                           << worst << " of it");
    if (!stories.empty()) BOOST_TEST(recomputed > 0u);  // stories260K's near-ties reach the recomputation (105 tokens)
    if (!stories.empty()) BOOST_TEST(recomputed_in_blocks > 0u);
    BOOST_TEST(entries > 0u);
}

BOOST_AUTO_TEST_CASE(bad_input_named_errors)
{
    auto nan = planted_tensors();
    nan["h.1.attn.c_attn.weight"].values[5] = std::nanf("");
    const auto nan_model = qkov::runs::open_model(write_gpt2("nan", nan));
    auto message = error_of([&] { qkov::runs::scan_model(nan_model); });
    BOOST_TEST(message.find("h.1.attn.c_attn.weight") != std::string::npos, message);
    BOOST_TEST(message.find("NaN") != std::string::npos, message);

    auto missing = planted_tensors();
    missing.erase("h.1.attn.c_proj.weight");
    // Found when the model opens: the config's 2 layers are checked against the tensors there.
    message = error_of([&] { qkov::runs::scan_model(qkov::runs::open_model(write_gpt2("missing", missing))); });
    BOOST_TEST(message.find("h.1.attn.c_proj.weight") != std::string::npos, message);
    BOOST_TEST(message.find("missing") != std::string::npos, message);

    // A head handed in directly (not through a file) with NaN is refused by the scan itself.
    qkov::model::head_weights h;
    h.layer = 3, h.head = 1;
    h.w_q = xt::zeros<double>({d, D}), h.w_k = h.w_q, h.w_v = h.w_q, h.w_o = xt::zeros<double>({D, d});
    h.w_v(1, 4) = std::nan("");
    message = error_of([&] { factor_head(h); });
    BOOST_TEST(message == "qkov: layer 3 head 1: W_v holds NaN at (1, 4)", message);
}

BOOST_AUTO_TEST_CASE(svd_fallback_driver)
{
    const matrix a = {{3, 1, 0}, {1, 2, 1}, {0, 1, 4}};
    const auto sdd = lapack_svd(a, svd_driver::gesdd), svd = lapack_svd(a, svd_driver::gesvd);
    for (std::size_t i = 0; i < 3; ++i) BOOST_TEST(std::abs(sdd.s(i) - svd.s(i)) < 1e-13);
    BOOST_TEST(svd.residual < 1e-14);
    // A tolerance no decomposition can meet rejects gesdd: the result says gesvd ran, and why.
    const auto fallback = checked_svd(a, -1.0);
    BOOST_TEST(fallback.driver.starts_with("gesvd (gesdd residual"), fallback.driver);
    for (std::size_t i = 0; i < 3; ++i) BOOST_TEST(std::abs(fallback.s(i) - sdd.s(i)) < 1e-13);
}

/// Every fixture against numpy's float64 values in reference.json (computed from the D x D
/// products and the d x d copying matrix there, not from cores).
BOOST_AUTO_TEST_CASE(fixtures_match_reference)
{
    const auto ref_path = qkov::test::shared_dir_or_skip("fixtures/models/reference.json");
    if (ref_path.empty()) return;
    std::ifstream in(ref_path);
    const auto ref = nlohmann::json::parse(in);
    for (const auto& [name, m] : ref["models"].items()) {
        BOOST_TEST_CONTEXT("fixture " << name)
        {
            const auto r = qkov::runs::scan_model(qkov::runs::open_model(qkov::test::shared_dir() / "fixtures/models" / name));
            BOOST_TEST_REQUIRE(r.heads.size() == m["heads"].size());
            for (const auto& e : m["heads"]) {
                const auto& h = head_at(r, e["layer"], e["head"]);
                BOOST_TEST(h.kv_head == e["kv_head"].get<std::size_t>());
                BOOST_TEST(h.q.rank == e["rank_q"].get<std::size_t>());
                BOOST_TEST(h.k.rank == e["rank_k"].get<std::size_t>());
                if (e["cond_q"].is_string()) BOOST_TEST(!h.q.condition.has_value());
                else BOOST_TEST(std::abs(*h.q.condition / e["cond_q"].get<double>() - 1) < 1e-10);
                if (e["cond_k"].is_string()) BOOST_TEST(!h.k.condition.has_value());
                else BOOST_TEST(std::abs(*h.k.condition / e["cond_k"].get<double>() - 1) < 1e-10);
                const double top_qk = e["qk_top5_sv"][0], top_ov = e["ov_top5_sv"][0];
                for (std::size_t i = 0; i < 5; ++i) {
                    BOOST_TEST(std::abs(h.qk.singular_values(i) - e["qk_top5_sv"][i].get<double>()) < 1e-12 * top_qk);
                    BOOST_TEST(std::abs(h.ov.singular_values(i) - e["ov_top5_sv"][i].get<double>()) < 1e-12 * top_ov);
                }
                BOOST_TEST_REQUIRE(h.copying_score.has_value());
                BOOST_TEST(std::abs(*h.copying_score - e["ov_copying_score"].get<double>()) < 1e-10);
                BOOST_TEST(h.qk.residual < 1e-13);
                BOOST_TEST(h.ov.residual < 1e-13);
            }
        }
    }
}

/// Composition scores from cores against the definition evaluated on dense D x D circuits.
BOOST_AUTO_TEST_CASE(fixture_composition_matches_dense)
{
    const auto dir = qkov::test::shared_dir_or_skip("fixtures/models/llama");
    if (dir.empty()) return;
    const auto model = qkov::runs::open_model(dir);
    // float64 to 1e-12; float32 to within each score's bound of that (composition.hpp).
    qkov::scan::scan_options exact;
    exact.precision = product_precision::float64;
    const auto r = qkov::runs::scan_model(model, exact), r32 = qkov::runs::scan_model(model);
    const auto l0 = model.layer(0), l1 = model.layer(1);
    const auto dense = [](const matrix& a, const matrix& b) { return matrix(xt::linalg::dot(a, b)); };
    const auto score = [](const matrix& a, const matrix& b) { return frobenius(xt::linalg::dot(a, b)) / (frobenius(a) * frobenius(b)); };
    // float64_block, what a float32 scan decides partners by, from the layers' factors as a scan
    // makes them: the float64 scan's scores to the bit.
    auto earlier = written_factors(l0.heads);
    std::vector<head_factors> factors;
    std::vector<head_metrics> metrics;
    for (const auto& h : l1.heads) factors.push_back(factor_head(h)), metrics.push_back(measure_head(h, factors.back()));
    const auto later = composition_factors(l1.heads, factors, metrics);
    std::size_t checked = 0;
    double largest_difference = 0, smallest_bound = INFINITY;
    for (const auto& s : l0.heads)
        for (const auto& t : l1.heads) {
            // Row convention, as TransformerLens writes it: OV = W_V W_O, QK = W_Q W_K^T.
            const auto row = qkov::model::to_row_convention(s), row_t = qkov::model::to_row_convention(t);
            const matrix ov_s = dense(row.W_V, row.W_O), qk_t = dense(row_t.W_Q, xt::transpose(row_t.W_K)), ov_t = dense(row_t.W_V, row_t.W_O);
            const double q = score(ov_s, qk_t), k = score(ov_s, matrix(xt::transpose(qk_t))), v = score(ov_s, ov_t);
            const auto& c = find_pair(r, 0, s.head, 1, t.head);
            BOOST_TEST(std::abs(c.q - q) < 1e-12);
            BOOST_TEST(std::abs(c.k - k) < 1e-12);
            BOOST_TEST(std::abs(c.v - v) < 1e-12);
            BOOST_TEST((c.q_bound == 0 && c.k_bound == 0 && c.v_bound == 0));
            const auto [first, block] = float64_block(earlier, s.head, later);
            const auto& e = block.at((s.head - first) * l1.heads.size() + t.head);
            BOOST_TEST((e.source_layer == 0 && e.source_head == s.head && e.target_layer == 1 && e.target_head == t.head));
            BOOST_TEST((e.q == c.q && e.k == c.k && e.v == c.v));
            const auto& f = find_pair(r32, 0, s.head, 1, t.head);
            for (const auto& [single, reference, bound] : {std::tuple{f.q, q, f.q_bound}, {f.k, k, f.k_bound}, {f.v, v, f.v_bound}}) {
                BOOST_TEST(std::abs(single - reference) <= bound + 1e-12);
                largest_difference = std::max(largest_difference, std::abs(single - reference));
                smallest_bound = std::min(smallest_bound, bound);
            }
            const auto t3 = std::get<1>(xt::linalg::svd(matrix(xt::linalg::dot(t.w_v, s.w_o)), false, false));
            for (std::size_t i = 0; i < t3.size(); ++i) BOOST_TEST(std::abs(c.t3_singular_values()(i) - t3(i)) < 1e-12 * t3(0));
            ++checked;
        }
    BOOST_TEST(checked == l0.heads.size() * l1.heads.size());
    BOOST_TEST(largest_difference > 0);  // the float32 path ran
    BOOST_TEST_MESSAGE("float32 composition: largest difference " << largest_difference << ", smallest bound " << smallest_bound);
}

/// A layer pair of several blocks of source heads (d = 32: blocks of 8 sources, so 12 sources make
/// a block of 8 and one of 4) from random factors: float64_block gives float64 compose()'s pairs
/// to the bit for every source, and float32 compose() each score within its bound of them.
BOOST_AUTO_TEST_CASE(composition_blocks_of_sources)
{
    const std::size_t Hs = 12, Ht = 4, G = 2, d = 32, D = 96;
    std::mt19937 engine(7);
    std::normal_distribution<double> normal(0, 1);
    const auto random = [&](std::size_t r, std::size_t c) {
        matrix m = xt::empty<double>({r, c});
        for (auto& x : m) x = normal(engine);
        return m;
    };
    layer_composition_factors earlier, later;
    earlier.layer = 0, earlier.heads = Hs, earlier.d = d, earlier.groups = Hs, earlier.writes = random(D, Hs * d);
    for (std::size_t s = 0; s < Hs; ++s) {
        earlier.r_v.push_back(random(d, d));
        earlier.ov_norm.push_back(1.0 + static_cast<double>(s));
        earlier.r_v_norm.push_back(spectral_norm_bound(earlier.r_v.back()));
    }
    later.layer = 1, later.heads = Ht, later.d = d, later.groups = G, later.reads = random((Ht + 2 * G) * d, D);
    for (std::size_t t = 0; t < Ht; ++t) {
        later.group.push_back(t / 2);
        later.r_o.push_back(random(d, d)), later.r_q.push_back(random(d, d));
        later.qk_norm.push_back(2.0), later.ov_norm.push_back(3.0);
        later.r_o_norm.push_back(spectral_norm_bound(later.r_o.back())), later.r_q_norm.push_back(spectral_norm_bound(later.r_q.back()));
    }
    later.reads32 = to_float32(later.reads.data(), later.reads.size());
    for (std::size_t b = 0; b < Ht + 2 * G; ++b) later.read_norms.push_back(frobenius(std::span<const double>(later.reads.data() + b * d * D, d * D)));
    BOOST_TEST(layer_pair_products::sources_per_block(Hs, d) == 8u);
    std::vector<composition_score> f64, f32;
    compose(earlier, later, f64, nullptr, product_precision::float64);
    compose(earlier, later, f32, nullptr, product_precision::float32);
    BOOST_TEST_REQUIRE(f64.size() == Hs * Ht);
    BOOST_TEST_REQUIRE(f32.size() == Hs * Ht);
    for (std::size_t s = 0; s < Hs; ++s) {
        const auto [first, block] = float64_block(earlier, s, later);
        BOOST_TEST(first == (s < 8 ? 0u : 8u));
        BOOST_TEST(block.size() == (s < 8 ? 8u : 4u) * Ht);
        for (std::size_t t = 0; t < Ht; ++t) {
            const auto &a = block.at((s - first) * Ht + t), &b = f64[s * Ht + t], &c = f32[s * Ht + t];
            BOOST_TEST((a.source_head == s && b.source_head == s && c.source_head == s && a.target_head == t && b.target_head == t && c.target_head == t));
            BOOST_TEST((a.q == b.q && a.k == b.k && a.v == b.v));
            BOOST_TEST((b.q_bound == 0 && b.k_bound == 0 && b.v_bound == 0));
            BOOST_TEST((c.q_bound > 0 && c.k_bound > 0 && c.v_bound > 0));
            BOOST_TEST(std::abs(c.q - b.q) <= c.q_bound);
            BOOST_TEST(std::abs(c.k - b.k) <= c.k_bound);
            BOOST_TEST(std::abs(c.v - b.v) <= c.v_bound);
            BOOST_TEST(c.q != b.q);  // the float32 path ran
        }
    }
    // Below 1 the partners would be decided inside the bounds: refused before any work.
    for (const double scale : {0.5, std::numeric_limits<double>::infinity()}) {
        circuit_search_settings settings;
        settings.partner_bound_scale = scale;
        BOOST_CHECK_THROW(layer_circuits(4, 4, D, settings), std::invalid_argument);
    }
}

/// A circuit's partners from bounded scores (circuit_search.hpp): decided from the float32 scores
/// while every bound leaves the cut at a tenth of the largest weight and the order as they are;
/// otherwise from the float64 scores `exact` gives, and never without them.
BOOST_AUTO_TEST_CASE(partners_are_decided_from_bounds_or_recomputed)
{
    offset_writes writes;
    for (std::size_t h = 0; h < 4; ++h) writes.heads.push_back({0, h, {1.0, 0.5}});  // attention 0.5 at offset 1
    // Weights 0.5, 0.25, 0.04, 0.01 (total 0.8) against a cut at 0.05: heads 0 and 1, shares 0.5/0.8 and 0.25/0.8.
    const std::vector<double> scores = {1.0, 0.5, 0.08, 0.02};
    const auto with = [&](std::vector<double> values, std::vector<double> bounds) {
        return [values, bounds](const earlier_head& e, bool) { return bounded_score{values[e.head], bounds[e.head]}; };
    };
    std::size_t asked = 0;
    const auto exact_of = [&](std::vector<double> values) {
        return [&asked, values](const earlier_head& e, bool) {
            ++asked;
            return values[e.head];
        };
    };
    const auto heads_of = [](const std::vector<circuit_partner>& p) {
        std::vector<std::size_t> out;
        for (const auto& x : p) out.push_back(x.head);
        return out;
    };
    // Without bounds: the float64 decision, by hand.
    const auto plain = side_partners(writes, 1, false, with(scores, {0, 0, 0, 0}));
    BOOST_TEST((heads_of(plain) == std::vector<std::size_t>{0, 1}));
    BOOST_TEST(plain[0].share == 0.5 / 0.8);
    BOOST_TEST(plain[1].share == 0.25 / 0.8);
    // Bounds far from the cut and the order: the same partners, exact never asked.
    const auto bounded = side_partners(writes, 1, false, with(scores, {1e-6, 1e-6, 1e-6, 1e-6}), exact_of(scores));
    BOOST_TEST((heads_of(bounded) == std::vector<std::size_t>{0, 1}));
    BOOST_TEST(asked == 0u);
    // Head 2's weight 0.04 +- 0.015 straddles the cut 0.05: every weight from exact, where head 2 is 0.11.
    const auto cut = side_partners(writes, 1, false, with(scores, {0, 0, 0.03, 0}), exact_of({1.0, 0.5, 0.11, 0.02}));
    BOOST_TEST((heads_of(cut) == std::vector<std::size_t>{0, 1, 2}));
    BOOST_TEST(asked == 4u);
    // Heads 1 and 2 within each other's bounds: their order is open, exact orders them.
    asked = 0;
    const auto order = side_partners(writes, 1, false, with({1.0, 0.5, 0.5000001, 0.02}, {0, 1e-6, 1e-6, 0}), exact_of({1.0, 0.5, 0.4999, 0.02}));
    BOOST_TEST((heads_of(order) == std::vector<std::size_t>{0, 1, 2}));
    BOOST_TEST(asked == 4u);
    // The float64 path's shares are the plain ones: the same scores, the same arithmetic.
    BOOST_TEST(cut[0].share == side_partners(writes, 1, false, with({1.0, 0.5, 0.11, 0.02}, {0, 0, 0, 0}))[0].share);
    // A weight whose bound reaches 0 but stays below the cut whatever the bounds: decided, not recomputed.
    asked = 0;
    const auto low = side_partners(writes, 1, false, with({1.0, 0.5, 0.001, 0.02}, {0, 0, 0.002, 0}), exact_of(scores));
    BOOST_TEST((heads_of(low) == std::vector<std::size_t>{0, 1}));
    BOOST_TEST(asked == 0u);
    // The largest weight's own bound moves the cut: 0.5 +- 0.2 puts it anywhere in 0.03 .. 0.07, and head 2 (0.04) is open.
    BOOST_CHECK_THROW(side_partners(writes, 1, false, with(scores, {0.4, 0, 0, 0})), std::logic_error);
    // Open with nothing to decide it: an error, not a guess.
    BOOST_CHECK_THROW(side_partners(writes, 1, false, with(scores, {0, 0, 0.03, 0})), std::logic_error);
}

/// A trained model in two containers (HF safetensors in rotate_half order, GGUF in interleaved
/// order: Q/K rows permuted within each head): every number the scan gives must agree, since the
/// permutation cancels in W_q^T W_k and leaves the singular values of W_q and W_k unchanged.
BOOST_AUTO_TEST_CASE(stories260k_same_in_both_containers)
{
    const auto dir = qkov::test::shared_dir_or_skip("real_models/llama2c-stories260K");
    if (dir.empty()) return;
    const auto hf = qkov::runs::scan_model(qkov::runs::open_model(dir / "hf"));
    const auto gguf = qkov::runs::scan_model(qkov::runs::open_model(dir / "stories260K.gguf"));
    BOOST_TEST_REQUIRE(hf.heads.size() == gguf.heads.size());
    BOOST_TEST_REQUIRE(hf.composition.size() == gguf.composition.size());
    BOOST_TEST(hf.copying_available == gguf.copying_available);
    const auto same = [](const vector& a, const vector& b) {
        double gap = 0;
        for (std::size_t i = 0; i < a.size(); ++i) gap = std::max(gap, std::abs(a(i) - b(i)));
        return gap <= 1e-12 * std::max(1.0, a(0));
    };
    for (std::size_t i = 0; i < hf.heads.size(); ++i) {
        const auto &a = hf.heads[i], &b = gguf.heads[i];
        BOOST_TEST((a.layer == b.layer && a.head == b.head && a.kv_head == b.kv_head));
        BOOST_TEST(a.q.rank == b.q.rank);
        BOOST_TEST(a.k.rank == b.k.rank);
        BOOST_TEST(same(a.qk.singular_values, b.qk.singular_values));
        BOOST_TEST(same(a.ov.singular_values, b.ov.singular_values));
        BOOST_TEST(std::abs(a.ov_identity_distance - b.ov_identity_distance) < 1e-12);
        BOOST_TEST(a.copying_score.has_value() == b.copying_score.has_value());
        if (a.copying_score && b.copying_score) BOOST_TEST(std::abs(*a.copying_score - *b.copying_score) < 1e-10);
    }
    for (std::size_t i = 0; i < hf.composition.size(); ++i) {
        const auto &a = hf.composition[i], &b = gguf.composition[i];
        // Each within its bound of the float64 scan's (0 there), which both containers share.
        BOOST_TEST(std::abs(a.q - b.q) <= a.q_bound + b.q_bound + 1e-12);
        BOOST_TEST(std::abs(a.k - b.k) <= a.k_bound + b.k_bound + 1e-12);
        BOOST_TEST(std::abs(a.v - b.v) <= a.v_bound + b.v_bound + 1e-12);
        BOOST_TEST(same(a.t3_singular_values(), b.t3_singular_values()));
    }
}

BOOST_AUTO_TEST_CASE(sharded_scan_merges_to_the_whole)
{
    qkov::test::check_shards_merge_to_whole(write_gpt2("planted-shards", planted_tensors()), {{0, 0}, {1, 1}});
    // The fixtures: learned positions (gpt2), partial rotary (gpt_neox), GQA with RoPE (llama, whose B4 fact the merge states again).
    for (const char* name : {"gpt2", "gpt_neox", "llama"})
        if (const auto dir = qkov::test::shared_dir_or_skip(std::string("fixtures/models/") + name); !dir.empty()) qkov::test::check_shards_merge_to_whole(dir, {{0, 0}, {1, 1}});
    // stories260K's five layers in three shards: unit.scan_trained, in the release build.
}

namespace {

/// Rewrites one file of a shard-inputs directory with edit(tensor name, values) applied, and the
/// manifest with its new SHA-256: a file as consistent as the preparation's own, with other numbers.
void rewrite_shard_file(const fs::path& dir, const std::string& file,
                        const std::function<void(const std::string&, std::vector<double>&, std::vector<std::size_t>&)>& edit)
{
    std::vector<qkov::io::tensor_to_write> tensors;
    {
        const qkov::io::safetensors_file f(dir / file);
        for (const auto& name : f.names()) {
            const auto* t = f.find(name);
            std::vector<double> values(t->count);
            for (std::size_t i = 0; i < t->count; ++i) values[i] = t->at(i);
            auto shape = t->shape;
            edit(name, values, shape);
            tensors.push_back({name, shape, {}, std::move(values)});
        }
    }
    qkov::io::write_safetensors(dir / file, tensors);
    std::ifstream in(dir / shard_inputs_manifest);
    auto manifest = nlohmann::json::parse(in);
    if (manifest["common"].is_object() && manifest["common"]["file"] == file) manifest["common"]["sha256"] = qkov::io::file_sha256(dir / file);
    for (const char* list : {"layers", "circuits"})
        for (auto& entry : manifest[list])
            if (entry["file"] == file) entry["sha256"] = qkov::io::file_sha256(dir / file);
    std::ofstream(dir / shard_inputs_manifest) << manifest.dump(1);
}

} // namespace

/// A shard reads what the preparation wrote only after checking it: inputs of another model or of
/// other options, a shard not prepared, a file changed after the manifest, a value that is not
/// finite, a tensor of another shape are refused by name. And it does read them: the same inputs with other numbers (their
/// SHA-256 in the manifest) change its labels' evidence, which its own pass would not.
BOOST_AUTO_TEST_CASE(shard_inputs_are_checked_and_used)
{
    const auto dir = qkov::test::shared_dir_or_skip("fixtures/models/llama"), other = qkov::test::shared_dir_or_skip("fixtures/models/gpt_neox");
    if (dir.empty() || other.empty()) return;
    const auto m = qkov::runs::open_model(dir);
    const auto out = fs::temp_directory_path() / "scan-tests-shard-inputs";
    fs::remove_all(out);
    qkov::runs::prepare_shard_inputs(m, {0, 1}, out / "both", {});
    qkov::runs::prepare_shard_inputs(m, {0}, out / "first", {});
    scan_options o;
    o.first_layer = 1;
    const auto own = qkov::runs::scan_model(m, o);
    o.shared_inputs = out / "both";
    const auto read = qkov::runs::scan_model(m, o);
    BOOST_TEST_REQUIRE(read.heads.size() == own.heads.size());
    BOOST_TEST_REQUIRE(read.heads[0].mean_field.has_value());
    BOOST_TEST(read.heads[0].mean_field->by_offset == own.heads[0].mean_field->by_offset);

    const auto refused = [&](const scan_options& options, const std::string& words) {
        const auto e = error_of([&] { (void)qkov::runs::scan_model(m, options); });
        BOOST_TEST(e.find(words) != std::string::npos, "expected '" << words << "' in: " << e);
    };
    auto changed = o;
    changed.thresholds.queries = 40;
    refused(changed, "another set of options: thresholds.queries is 50 there, 40 here");
    changed = o, changed.search_circuits = false;
    refused(changed, "search_circuits is true there, false here");
    {
        scan_options p;
        p.first_layer = 1, p.shared_inputs = out / "both";
        const auto e = error_of([&] { (void)qkov::runs::scan_model(qkov::runs::open_model(other), p); });
        BOOST_TEST(e.find("prepared for another model") != std::string::npos, e);
    }
    changed = o, changed.shared_inputs = out / "first";
    refused(changed, "holds no circuit writes for a shard starting at layer 1 (prepared: none;");
    changed.shared_inputs = out / "absent";
    refused(changed, "no such file (the manifest)");

    // One byte of a layer's file changed after the manifest named it.
    fs::copy(out / "both", out / "byte", fs::copy_options::recursive);
    {
        std::fstream f(out / "byte" / "layer-1.safetensors", std::ios::in | std::ios::out | std::ios::binary);
        f.seekp(-3, std::ios::end);
        f.put('\x7f');
    }
    changed.shared_inputs = out / "byte";
    refused(changed, "its SHA-256 is not the one the manifest names");
    // A value that is not finite, the file otherwise consistent.
    fs::copy(out / "both", out / "nan", fs::copy_options::recursive);
    rewrite_shard_file(out / "nan", "layer-1.safetensors", [](const std::string& name, std::vector<double>& v, std::vector<std::size_t>&) {
        if (name == "proxy") v[5] = std::nan("");
    });
    changed.shared_inputs = out / "nan";
    refused(changed, "layer-1.safetensors: tensor 'proxy': NaN at index [0, 5]");
    // A tensor of another shape.
    fs::copy(out / "both", out / "shape", fs::copy_options::recursive);
    rewrite_shard_file(out / "shape", "layer-1.safetensors", [](const std::string& name, std::vector<double>& v, std::vector<std::size_t>& shape) {
        if (name == "readout") v.resize(v.size() - shape[1]), --shape[0];
    });
    changed.shared_inputs = out / "shape";
    refused(changed, "readout is not");
    // Circuit writes whose heads do not own their attention values.
    fs::copy(out / "both", out / "heads", fs::copy_options::recursive);
    rewrite_shard_file(out / "heads", "circuits-1.safetensors", [](const std::string& name, std::vector<double>& v, std::vector<std::size_t>&) {
        if (name == "writes.heads") v.back() -= 1;
    });
    changed.shared_inputs = out / "heads";
    refused(changed, "writes.attention holds values no head in writes.heads owns");
    // Other numbers, consistently written: the proxy sequence's normed input at layer 1 moved.
    fs::copy(out / "both", out / "moved", fs::copy_options::recursive);
    rewrite_shard_file(out / "moved", "layer-1.safetensors", [](const std::string& name, std::vector<double>& v, std::vector<std::size_t>&) {
        if (name == "proxy")
            for (std::size_t i = 0; i < v.size(); i += 3) v[i] += 1.0;
    });
    changed.shared_inputs = out / "moved";
    const auto moved = qkov::runs::scan_model(m, changed);
    BOOST_TEST(moved.heads[0].mean_field->by_offset != own.heads[0].mean_field->by_offset);
    // And the token circuit: W_E^T W_U read from the file gives the copying scores.
    fs::copy(out / "both", out / "tokens", fs::copy_options::recursive);
    rewrite_shard_file(out / "tokens", "common.safetensors", [](const std::string& name, std::vector<double>& v, std::vector<std::size_t>&) {
        if (name == "token_circuit")
            for (auto& x : v) x = -x;
    });
    changed.shared_inputs = out / "tokens";
    const auto negated = qkov::runs::scan_model(m, changed);
    BOOST_TEST_REQUIRE(own.heads[0].copying_score.has_value());
    BOOST_TEST(*negated.heads[0].copying_score != *own.heads[0].copying_score);
    fs::remove_all(out);
}

namespace {

/// A copy of `s` whose tensors are `tensors`, written as `file` beside its document, which names
/// them by their SHA-256.
scan_shard with_tensor_file(scan_shard s, const std::string& file, const std::vector<qkov::io::tensor_to_write>& tensors)
{
    qkov::io::write_safetensors(s.directory / file, tensors);
    s.document["composition"]["tensors"] = file;
    s.document["composition"]["sha256"] = qkov::io::file_sha256(s.directory / file);
    return s;
}

/// `s`'s own tensors, float64, with edit(tensor name, values) applied.
std::vector<qkov::io::tensor_to_write> edited_tensors(const scan_shard& s, const std::function<void(const std::string&, std::vector<double>&)>& edit)
{
    const qkov::io::safetensors_file in(s.directory / s.document["composition"]["tensors"].get<std::string>());
    std::vector<qkov::io::tensor_to_write> tensors;
    for (const char* name : {"q_composition", "k_composition", "v_composition", "t3_singular_values"}) {
        const auto* t = in.find(name);
        std::vector<double> values(t->count);
        std::memcpy(values.data(), t->bytes.data(), values.size() * sizeof(double));
        edit(name, values);
        tensors.push_back({name, t->shape, {}, values});
    }
    return tensors;
}

scan_shard with_tensors(const scan_shard& s, const std::string& file, const std::function<void(const std::string&, std::vector<double>&)>& edit)
{
    return with_tensor_file(s, file, edited_tensors(s, edit));
}

} // namespace

BOOST_AUTO_TEST_CASE(merge_names_what_is_not_one_scan)
{
    const auto m = qkov::runs::open_model(write_gpt2("planted-merge-errors", planted_tensors()));
    const auto dir = fs::temp_directory_path() / "scan-tests-merge-errors";
    fs::remove_all(dir);
    const scan_shard a = qkov::test::scan_files(m, 0, 0, dir, "a.json"), b = qkov::test::scan_files(m, 1, 1, dir, "b.json"), whole = qkov::test::scan_files(m, 0, std::nullopt, dir, "whole.json");
    const auto merge_error = [&](std::vector<scan_shard> shards) { return error_of([&] { merge_scans(shards, dir / "merged.tensors.safetensors"); }); };
    const auto edited = [](scan_shard s, const std::function<void(nlohmann::json&)>& edit) {
        edit(s.document);
        return s;
    };
    const auto check = [](const std::string& message, const std::string& expected) {
        BOOST_TEST(qkov::test::contains(message, expected), message << "\n  expected: " << expected);
    };
    BOOST_TEST(merge_error({a, b}) == "(no error)");
    check(merge_error({}), "qkov: no scans to merge");
    check(merge_error({a, edited(b, [](auto& j) { j["schema"] = "qkov.detect/1"; })}), "b.json: expected a document of schema qkov.scan/4");
    check(merge_error({a, edited(b, [](auto& j) { j["model"]["path"] = "other"; })}),
          "b.json and a.json are scans of different models: model/path is \"model\" in a.json, \"other\" in b.json");
    check(merge_error({a, edited(b, [](auto& j) { j["thresholds"]["context"] = 99; })}),
          "b.json and a.json were scanned with different thresholds or options: thresholds/context is 16 in a.json, 99 in b.json");
    check(merge_error({a, whole}), "a.json (layer 0) and whole.json (layers 0-1) overlap at layer 0: each layer must be in exactly one shard");
    check(merge_error({a}), "no shard holds layer 1 of the model's layers 0-1");
    check(merge_error({b}), "no shard holds layer 0 of the model's layers 0-1");
    check(merge_error({a, edited(b, [](auto& j) { j["scanned_layers"] = {1, 2}; })}), "b.json holds layers 1-2, beyond the model's layers 0-1");
    check(merge_error({a, edited(b, [](auto& j) { j["scanned_layers"] = {1, 0}; })}), "b.json: scanned_layers [1,0] run backwards");
    check(merge_error({edited(a, [](auto& j) { j["heads"][0]["layer"] = 1; }), b}), "a.json: heads[0] is head 1.0, outside its layers 0-0");
    check(merge_error({edited(a, [](auto& j) { j["facts"].push_back({{"claim", "R7"}}); }), b}), "a.json states claim R7, which only a scan of the whole seed-head model checks");
    check(merge_error({edited(a, [](auto& j) { j["heads"][1]["cond_q"] = "x"; }), b}), "a.json: heads[1].cond_q is not a number");
    // What a whole scan could not hold: a head twice, a head past the model's heads, a shard
    // without its heads, a label outside the vocabulary.
    check(merge_error({a, edited(b, [](auto& j) { j["heads"].push_back(j["heads"][0]); })}), "lists head 1.0 a second time");
    check(merge_error({a, edited(b, [](auto& j) { j["heads"][0]["head"] = 99; })}), "b.json: heads[0] is head 1.99, but the model has");
    check(merge_error({a, edited(b, [](auto& j) { j["heads"] = nlohmann::json::array(); })}), "heads, but the model has 2 layers x");
    check(merge_error({a, edited(b, [](auto& j) { j["heads"][0]["labels"] = {"mystery"}; })}), "b.json: heads[0] has the label \"mystery\", which is not in qkov's vocabulary");
    // The tensors: only the file the document names, beside it, holding each pair where it belongs.
    check(merge_error({a, edited(b, [](auto& j) { j["composition"] = nlohmann::json::array(); })}), "b.json: composition is not an object naming the pairs' tensors");
    check(merge_error({a, edited(b, [](auto& j) { j["composition"]["tensors"] = "../b.tensors.safetensors"; })}),
          "b.json: composition.tensors \"../b.tensors.safetensors\" is not the name of a file beside the document");
    check(merge_error({a, edited(b, [](auto& j) { j["composition"]["tensors"] = "absent.safetensors"; })}), "absent.safetensors: no such file");
    BOOST_TEST(b.document["composition"]["tensors"] == "b.tensors.safetensors");
    check(merge_error({a, edited(b, [](auto& j) { j["composition"]["sha256"] = "00"; })}), "its SHA-256 is not the 00 the document names: not the file scanned with it");
    check(merge_error({a, edited(b, [](auto& j) { j["composition"]["tensors"] = "a.tensors.safetensors"; })}),
          "b.json: its composition tensors: " + (dir / "a.tensors.safetensors").string() + ": its SHA-256 is not the");
    fs::create_symlink(dir / "b.tensors.safetensors", dir / "link.safetensors");
    check(merge_error({a, edited(b, [](auto& j) { j["composition"]["tensors"] = "link.safetensors"; })}), "link.safetensors: not a regular file");
    // Files the document names by their right checksum, but not the four float64 tensors of the model's shape.
    auto f32 = edited_tensors(b, [](const std::string&, auto&) {});
    f32[0].values.assign(f32[0].values64.begin(), f32[0].values64.end()), f32[0].values64.clear();
    check(merge_error({a, with_tensor_file(b, "f32.safetensors", f32)}), "f32.safetensors: q_composition is not float64");
    auto five = edited_tensors(b, [](const std::string&, auto&) {});
    five.push_back({"extra", {1}, {}, {0.0}});
    check(merge_error({a, with_tensor_file(b, "five.safetensors", five)}), "five.safetensors: holds 5 tensors, not 4");
    auto reshaped = edited_tensors(b, [](const std::string&, auto&) {});
    reshaped[1].shape = {4, 2, 2, 4};
    check(merge_error({a, with_tensor_file(b, "reshaped.safetensors", reshaped)}), "k_composition does not have the model's shape (2 layers x 4 heads)");
    auto short_spectra = edited_tensors(b, [](const std::string&, auto&) {});
    short_spectra[3].shape.back() = 1, short_spectra[3].values64.resize(64);
    check(merge_error({a, with_tensor_file(b, "short.safetensors", short_spectra)}), "b.json: its T3 spectra have 1 values, not the model's head dimension");
    check(merge_error({a, edited(b, [](auto& j) { j["composition"]["pairs"] = 99; })}), "b.json: its document says 99 composition pairs, its tensors hold 16");
    check(merge_error({a, edited(b, [](auto& j) { j["composition"]["largest_bound"] = -1e-5; })}),
          "b.json: composition.largest_bound is not a finite non-negative number");
    check(merge_error({a, edited(b, [](auto& j) { j["composition"].erase("recomputed_in_float64"); })}), "b.json: composition.recomputed_in_float64 is not a count");
    // The merged document's bound is the shards' largest, its recomputed pairs their sum.
    {
        const auto with_counts = [&](scan_shard s, double bound, std::size_t recomputed) {
            s.document["composition"]["largest_bound"] = bound, s.document["composition"]["recomputed_in_float64"] = recomputed;
            return s;
        };
        std::vector<scan_shard> shards = {with_counts(a, 2e-5, 3), with_counts(b, 1e-5, 4)};
        const auto merged = merge_scans(shards, dir / "merged.tensors.safetensors");
        BOOST_TEST(merged["composition"]["largest_bound"].get<double>() == 2e-5);
        BOOST_TEST(merged["composition"]["recomputed_in_float64"].get<std::size_t>() == 7u);
    }
    // q_composition[0, 0, 1, 0] is the pair 0.0 -> 1.0, which belongs to b (layer 1), not to a.
    const auto at = [](std::size_t sl, std::size_t sh, std::size_t tl, std::size_t th) { return ((sl * 4 + sh) * 2 + tl) * 4 + th; };
    check(merge_error({with_tensors(a, "a2.safetensors", [&](const std::string& n, auto& v) { if (n == "q_composition") v[at(0, 0, 1, 0)] = 0.5; }), b}),
          "a.json: its tensor q_composition holds the pair 0.0 -> 1.0, outside its layers 0-0 (a pair belongs to the shard of its later head)");
    check(merge_error({a, with_tensors(b, "b2.safetensors", [&](const std::string& n, auto& v) { if (n == "v_composition") v[at(1, 0, 1, 1)] = 0.5; })}),
          "b.json: its tensor v_composition holds the pair 1.0 -> 1.1: composition runs from an earlier layer to a later one");
    check(merge_error({a, with_tensors(b, "b3.safetensors", [&](const std::string& n, auto& v) { if (n == "k_composition") v[at(0, 2, 1, 3)] = NAN; })}),
          "b.json: its tensor k_composition lacks the pair 0.2 -> 1.3 (NaN or infinite), which a scan of its layers holds");
    check(merge_error({a, with_tensors(b, "b4.safetensors", [&](const std::string& n, auto& v) { if (n == "t3_singular_values") v[at(1, 0, 0, 0) * (v.size() / 64)] = 1; })}),
          "b.json: its tensor t3_singular_values holds the pair 1.0 -> 0.0");
    check(merge_error({a, with_tensors(b, "b6.safetensors", [&](const std::string& n, auto& v) { if (n == "q_composition") v[at(1, 0, 1, 1)] = -v[at(1, 0, 1, 1)]; })}),
          "b.json: its tensor q_composition holds the pair 1.0 -> 1.1");  // another NaN's bits: absence is one NaN
    BOOST_TEST(merge_error({a, with_tensors(b, "b5.safetensors", [](const std::string&, auto&) {})}) == "(no error)");  // the copy itself merges
    // Two long values that differ past their 77th character are shown where they differ.
    const std::string long_path = std::string(100, 'x');
    const auto differ = merge_error({edited(a, [&](auto& j) { j["model"]["path"] = long_path + "A"; }), edited(b, [&](auto& j) { j["model"]["path"] = long_path + "B"; })});
    check(differ, "xxxA\" in a.json");
    check(differ, "xxxB\" in b.json");

    const auto directory = fs::temp_directory_path() / "scan-tests-merge-files";
    fs::create_directories(directory);
    std::ofstream(directory / "not.json") << "{ not json";
    check(error_of([&] { read_scan_shard(directory / "absent.json"); }), "absent.json: no such file");
    check(error_of([&] { read_scan_shard(directory); }), "scan-tests-merge-files: not a regular file");
    check(error_of([&] { read_scan_shard(directory / "not.json"); }), "not.json: not valid JSON");
    std::ofstream(directory / "twice.json") << R"({"schema": "qkov.scan/4", "heads": [{"layer": 0}], "heads": []})";
    check(error_of([&] { read_scan_shard(directory / "twice.json"); }), "twice.json: the key \"heads\" appears twice in one object");
    std::ofstream(directory / "deep.json") << std::string(100000, '[') << std::string(100000, ']');
    check(error_of([&] { read_scan_shard(directory / "deep.json"); }), "deep.json: JSON nests deeper than 64 levels");
    fs::remove_all(dir);
}

BOOST_AUTO_TEST_CASE(time_left_grows_with_the_layer_pairs)
{
    // Heads 1 s per layer, composition 0.5 s per layer pair: layer l took 1 + 0.5 l seconds.
    scan_time_estimate e(0, 7);
    BOOST_TEST(!e.seconds_left().has_value());  // nothing timed yet
    e.record({0, 1.0, 0.0});
    BOOST_TEST(!e.seconds_left().has_value());  // layer 0 has no pairs: their cost is unknown
    for (std::size_t l = 1; l < 4; ++l) e.record({l, 1.0, 0.5 * static_cast<double>(l)});
    // Layers 4..7 left: 4 s of heads and 0.5 s x (4 + 5 + 6 + 7) pairs, not 4 x the mean layer's 1.75 s.
    BOOST_TEST(*e.seconds_left() == 4.0 + 0.5 * 22, boost::test_tools::tolerance(1e-12));
    for (std::size_t l = 4; l < 8; ++l) e.record({l, 1.0, 0.5 * static_cast<double>(l)});
    BOOST_TEST(*e.seconds_left() == 0.0);
    // A shard of layers 6-7 of a deeper model: its first layer already has pairs (with layers 0-5).
    scan_time_estimate shard(6, 7);
    shard.record({6, 1.0, 3.0});
    BOOST_TEST(*shard.seconds_left() == 1.0 + 0.5 * 7, boost::test_tools::tolerance(1e-12));
}

BOOST_AUTO_TEST_CASE(thread_count_does_not_change_the_scan)
{
    // stories260K's five layers: unit.scan_trained, in the release build.
    qkov::test::check_thread_counts_leave_the_scan_unchanged(write_gpt2("planted-threads", planted_tensors()));
    for (const char* name : {"fixtures/models/gpt2", "fixtures/models/llama"})
        if (const auto dir = qkov::test::shared_dir_or_skip(name); !dir.empty()) qkov::test::check_thread_counts_leave_the_scan_unchanged(dir);
}

// What --calibrate computes, against the forward pass run apart: with a calibration text the
// scan's mu_l (the mean normed input it predicts and certifies from) is the mean of layer l's
// normed inputs over the text's positions past BOS, each sequence run on its own with BOS put
// first (where the model has one and the line does not start with it), and no position past the
// 4,096 the scan reads. A fixture small enough for the sanitizer build, and a trained model.
BOOST_AUTO_TEST_CASE(calibrated_mu_is_the_texts_mean_normed_input)
{
    for (const char* name : {"fixtures/models/llama", "fixtures/models/gpt2", "trained_models/llama_rope_induction"}) {
        const auto dir = qkov::test::shared_dir_or_skip(name);
        if (dir.empty()) return;
        const auto model = qkov::runs::open_model(dir);
        const auto& c = model.config();
        // Three sequences: one starting with BOS already (not doubled), two without.
        const std::size_t bos = c.bos_token_id.value_or(0);
        std::vector<std::vector<std::size_t>> text{{bos, 5, 9, 7, 11, 3}, {4, 4, 8, 15, 16, 23, 42}, {100, 200, 300}};
        qkov::scan::scan_options options;
        options.calibration = text, options.calibration_name = "(three sequences)";
        options.keep_proxy_inputs = true;
        const auto r = qkov::runs::scan_model(model, options);
        BOOST_TEST_REQUIRE(r.proxy_inputs.size() == c.layers);
        // The forward pass apart: each sequence's normed inputs at every layer, rows past BOS summed.
        const qkov::forward::decoder<double> pass(model);
        std::vector<qkov::model::vector> sum(c.layers, xt::zeros<double>({c.hidden_size}));
        std::size_t rows = 0;
        for (const auto& ids : text) {
            std::vector<qkov::forward::token_id> run;
            if (c.bos_token_id && ids.front() != bos) run.push_back(static_cast<qkov::forward::token_id>(bos));
            for (const auto id : ids) run.push_back(static_cast<qkov::forward::token_id>(id));
            const std::size_t lead = c.bos_token_id ? 1 : 0;
            rows += run.size() - lead;
            (void)pass.residual_stream_of(pass.embed(run), {}, [&](std::size_t l, const qkov::numeric::tensor2<double>& normed) {
                for (std::size_t t = lead; t < normed.shape()[0]; ++t)
                    for (std::size_t j = 0; j < c.hidden_size; ++j) sum[l](j) += normed(t, j);
            });
        }
        BOOST_TEST(rows == 16u - (c.bos_token_id ? 1u : 0u) + (c.bos_token_id ? 0u : 1u));
        for (std::size_t l = 0; l < c.layers; ++l) {
            double worst = 0, size = 0;
            for (std::size_t j = 0; j < c.hidden_size; ++j) {
                const double expected = sum[l](j) / static_cast<double>(rows);
                worst = std::max(worst, std::abs(r.proxy_inputs[l].mean(j) - expected));
                size = std::max(size, std::abs(expected));
            }
            BOOST_TEST(worst <= 1e-12 * size, name << " layer " << l << ": mu differs from the text's mean normed input by " << worst);
        }
        // The evidence says where mu came from.
        BOOST_TEST(r.proxy_description.find("of the calibration text (three sequences)") != std::string::npos, r.proxy_description);
    }
}

// The circuit search's pieces against their definitions (circuit_search.hpp, offset_writes.hpp),
// on random weights: what the products compute in bulk is what the formulas say per head and token.
namespace {

qkov::model::matrix random_matrix(std::mt19937_64& rng, std::size_t rows, std::size_t columns)
{
    std::normal_distribution<double> normal;
    qkov::model::matrix m = xt::empty<double>({rows, columns});
    for (auto& x : m) x = normal(rng);
    return m;
}

qkov::model::vector random_vector(std::mt19937_64& rng, std::size_t n)
{
    std::normal_distribution<double> normal;
    qkov::model::vector v = xt::empty<double>({n});
    for (auto& x : v) x = normal(rng);
    return v;
}

/// Two layers of random heads (width 12, 3 heads of 4) over 20 tokens, with biases.
struct random_circuit_layers {
    static constexpr std::size_t width = 12, heads = 3, head_dim = 4, tokens = 20, window = 3;
    std::vector<qkov::model::head_weights> first, second;
    qkov::model::matrix rows_first, rows_second;
    std::vector<qkov::scan::mean_field_evidence> attention;

    random_circuit_layers()
    {
        std::mt19937_64 rng(40);
        for (auto* layer : {&first, &second})
            for (std::size_t h = 0; h < heads; ++h) {
                qkov::model::head_weights w;
                w.layer = layer == &first ? 0 : 1, w.head = h;
                w.w_q = random_matrix(rng, head_dim, width), w.w_k = random_matrix(rng, head_dim, width), w.w_v = random_matrix(rng, head_dim, width);
                w.w_o = random_matrix(rng, width, head_dim);
                w.b_q = random_vector(rng, head_dim), w.b_k = random_vector(rng, head_dim), w.b_v = random_vector(rng, head_dim);
                layer->push_back(w);
            }
        rows_first = random_matrix(rng, tokens, width), rows_second = random_matrix(rng, tokens, width);
        std::uniform_real_distribution<double> share(0.0, 1.0);
        for (std::size_t h = 0; h < heads; ++h) {
            qkov::scan::mean_field_evidence e;
            for (std::size_t k = 0; k <= window; ++k) e.by_offset.push_back(share(rng));
            attention.push_back(e);
        }
    }
};

} // namespace

BOOST_AUTO_TEST_CASE(offset_writes_are_the_heads_weighted_centred_outputs)
{
    const random_circuit_layers r;
    using R = random_circuit_layers;
    // The second head writes nothing (no attention): it must add nothing.
    const std::vector<const mean_field_evidence*> attention{&r.attention[0], nullptr, &r.attention[2]};
    offset_writes writes(R::window, R::tokens, R::width);
    writes.add_layer(r.first, attention, r.rows_first);
    BOOST_TEST_REQUIRE(writes.heads.size() == 2u);
    BOOST_TEST(writes.heads[1].head == 2u);
    for (std::size_t k = 1; k <= R::window; ++k) {
        // The definition, head by head and token by token.
        qkov::model::matrix expected = xt::zeros<double>({R::tokens, R::width});
        for (const std::size_t h : {std::size_t{0}, std::size_t{2}}) {
            const auto& w = r.first[h];
            qkov::model::matrix out = xt::zeros<double>({R::tokens, R::width});
            for (std::size_t t = 0; t < R::tokens; ++t)
                for (std::size_t j = 0; j < R::width; ++j)
                    for (std::size_t c = 0; c < R::head_dim; ++c) {
                        double value = w.b_v(c);
                        for (std::size_t i = 0; i < R::width; ++i) value += w.w_v(c, i) * r.rows_first(t, i);
                        out(t, j) += w.w_o(j, c) * value;
                    }
            for (std::size_t j = 0; j < R::width; ++j) {
                double mean = 0;
                for (std::size_t t = 0; t < R::tokens; ++t) mean += out(t, j) / R::tokens;
                for (std::size_t t = 0; t < R::tokens; ++t) expected(t, j) += r.attention[h].by_offset[k] * (out(t, j) - mean);
            }
        }
        const double worst = xt::amax(xt::abs(writes.by_offset[k - 1] - expected))();
        BOOST_TEST(worst <= 1e-12 * xt::amax(xt::abs(expected))(), "offset " << k << ": " << worst);
    }
}

BOOST_AUTO_TEST_CASE(circuit_sides_are_the_projections_of_the_normed_writes)
{
    const random_circuit_layers r;
    using R = random_circuit_layers;
    offset_writes writes(R::window, R::tokens, R::width);
    writes.add_layer(r.first, {&r.attention[0], &r.attention[1], &r.attention[2]}, r.rows_first);
    std::mt19937_64 rng(41);
    for (const auto kind : {qkov::io::norm_kind::layer_norm, qkov::io::norm_kind::rms_norm}) {
        qkov::model::norm_weights norm;
        norm.kind = kind, norm.weight = random_vector(rng, R::width);
        const double rho = 3.5;
        const layer_sides sides(r.second, r.rows_second, writes, norm, rho);
        const std::vector<std::size_t> some{0, 7, 19};
        for (std::size_t h = 0; h < R::heads; ++h)
            for (std::size_t k = 0; k <= R::window; ++k)
                for (const bool query : {true, false}) {
                    const auto& w = query ? r.second[h].w_q : r.second[h].w_k;
                    const auto& b = query ? r.second[h].b_q : r.second[h].b_k;
                    // W x + b at offset 0; W N(writes_k) after, N as the norm acts on an added vector.
                    const qkov::model::matrix input = k == 0 ? r.rows_second : through_norm_scale(writes.by_offset[k - 1], norm, rho);
                    const auto all = sides.side(h, k, query, nullptr), picked = sides.side(h, k, query, &some);
                    BOOST_TEST_REQUIRE(all.shape()[0] == R::tokens);
                    BOOST_TEST_REQUIRE(picked.shape()[0] == some.size());
                    double worst = 0, size = 0;
                    for (std::size_t t = 0; t < R::tokens; ++t)
                        for (std::size_t i = 0; i < R::head_dim; ++i) {
                            double expected = k == 0 ? b(i) : 0.0;
                            for (std::size_t j = 0; j < R::width; ++j) expected += w(i, j) * input(t, j);
                            worst = std::max(worst, std::abs(all(t, i) - expected)), size = std::max(size, std::abs(expected));
                            const auto at = std::find(some.begin(), some.end(), t);
                            if (at != some.end()) worst = std::max(worst, std::abs(picked(static_cast<std::size_t>(at - some.begin()), i) - expected));
                        }
                    BOOST_TEST(worst <= 1e-12 * size, "head " << h << ", offset " << k << (query ? " query" : " key") << ": " << worst);
                }
    }
}

BOOST_AUTO_TEST_CASE(the_cost_bound_on_fewer_keys_keeps_every_row_the_full_test_wins)
{
    // 64 tokens whose keys resemble their queries a little: some rows win, some lose. Against every
    // 4th key the same rows (every 8th token) win at least as often, row by row.
    std::mt19937_64 rng(42);
    const std::size_t S = 64, dim = 6;
    const auto queries = random_matrix(rng, S, dim);
    const qkov::model::matrix keys = 0.6 * queries + random_matrix(rng, S, dim);
    qkov::model::matrix rows = xt::empty<double>({S / 8, dim}), few_keys = xt::empty<double>({S / 4, dim});
    for (std::size_t r = 0; r < S / 8; ++r) xt::row(rows, r) = xt::row(queries, r * 8);
    for (std::size_t r = 0; r < S / 4; ++r) xt::row(few_keys, r) = xt::row(keys, r * 4);
    const auto everything = detail::diagonal_of(rows, keys, 8, 1), bound = detail::diagonal_of(rows, few_keys, 2, 1);
    BOOST_TEST(everything.top1_share > 0.0);
    BOOST_TEST(everything.top1_share < 1.0);  // the bound is tested where it can differ
    BOOST_TEST(bound.top1_share >= everything.top1_share);
    // And each row's verdict, one row at a time.
    for (std::size_t r = 0; r < S / 8; ++r) {
        const qkov::model::matrix one = xt::view(rows, xt::range(r, r + 1), xt::all());
        qkov::model::matrix own_first = keys;
        // Row r's own key moved to row 0 so that step 1 points at it.
        xt::row(own_first, 0) = xt::row(keys, r * 8), xt::row(own_first, r * 8) = xt::row(keys, 0);
        qkov::model::matrix few_first = few_keys;
        xt::row(few_first, 0) = xt::row(few_keys, r * 2), xt::row(few_first, r * 2) = xt::row(few_keys, 0);
        if (detail::diagonal_of(one, own_first, 1, 1).top1_share == 1.0) BOOST_TEST(detail::diagonal_of(one, few_first, 1, 1).top1_share == 1.0, "row " << r);
    }
}

BOOST_AUTO_TEST_CASE(circuit_candidates_kept_against_every_key_are_kept_against_fewer)
{
    // The second layer's keys are its queries (W_k = W_q, b_k = b_q): its direct circuit is a Gram
    // matrix whose diagonal wins many rows, so candidates reach the cost bound. The bound's rows are
    // every 4th token in both settings, its keys all 20 tokens, then every 2nd: each candidate kept
    // against every key is kept against fewer, with the same full test.
    random_circuit_layers r;
    using R = random_circuit_layers;
    for (auto& h : r.second) h.w_k = h.w_q, h.b_k = h.b_q;
    offset_writes writes(R::window, R::tokens, R::width);
    writes.add_layer(r.first, {&r.attention[0], &r.attention[1], &r.attention[2]}, r.rows_first);
    qkov::model::norm_weights norm;
    norm.kind = qkov::io::norm_kind::rms_norm, norm.weight = xt::ones<double>({R::width});
    const layer_sides sides(r.second, r.rows_second, writes, norm, 2.0);
    const circuit_search_settings every_key{.window = R::window, .context = 8, .prefilter_rows = 5, .prefilter_keys = 20};
    auto fewer_keys = every_key;
    fewer_keys.prefilter_keys = 10;
    const std::size_t per_head = 1 + R::window * (R::window + 1) / 2;  // (0, 0) and every k_q < k_k
    std::size_t kept = 0;
    for (std::size_t h = 0; h < R::heads; ++h) {
        const auto all = circuit_candidates(h, sides, std::nullopt, R::tokens, every_key), fewer = circuit_candidates(h, sides, std::nullopt, R::tokens, fewer_keys);
        BOOST_TEST(fewer.size() >= all.size());
        for (const auto& c : all) {
            const auto same = std::find_if(fewer.begin(), fewer.end(), [&](const auto& f) { return f.query.offset == c.query.offset && f.key.offset == c.key.offset; });
            BOOST_TEST_REQUIRE((same != fewer.end()), "head " << h << ": sides " << c.query.offset << ", " << c.key.offset << " dropped against fewer keys");
            BOOST_TEST(same->top1_share == c.top1_share);
            BOOST_TEST(same->boost == c.boost);
            ++kept;
        }
        BOOST_TEST(all.size() <= per_head);
    }
    BOOST_TEST(kept > 0u);                      // candidates reach the bound...
    BOOST_TEST(kept < R::heads * per_head);     // ...and the bound drops some: both sides are tested
}
