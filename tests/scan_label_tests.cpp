// qkov::scan on planted-head models (planted_models.hpp): in the GPT-2, GPT-NeoX and Llama-GQA
// layouts, float32 and bf16, each planted head shows the structure its construction gives it and is
// found by the seeds' searches (claims R7, R12), and no random head looks like anything. The labels
// proper (mean field, per-token copying) are tested on trained models in scan_trained_tests.cpp.
#define BOOST_TEST_MODULE scan_labels
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "model_runs.hpp"
#include "planted_models.hpp"
#include "qkov/scan/scan_model.hpp"

using namespace qkov::scan;
using qkov::test::planted_layout;
using qkov::test::stored_dtype;

namespace {

constexpr planted_layout layouts[] = {planted_layout::gpt2, planted_layout::gpt_neox, planted_layout::llama_gqa};
constexpr stored_dtype dtypes[] = {stored_dtype::f32, stored_dtype::bf16};
constexpr std::size_t D = 64, d = 16;

struct scanned {
    qkov::test::planted_model model;
    qkov::io::model_config config;  ///< as read back from the file
    scan_result result;
};

/// Writes the model, scans it and removes its files.
scanned scan_planted(planted_layout layout, stored_dtype dtype, bool with_embeddings = true, float common = 0.25f)
{
    auto m = qkov::test::write_planted_model(layout, dtype, with_embeddings, common);
    scanned s;
    {
        const auto model = qkov::runs::open_model(m.dir);
        s.config = model.config();
        s.result = qkov::runs::scan_model(model);
    }
    std::filesystem::remove_all(m.dir);
    s.model = std::move(m);
    return s;
}

const head_metrics& find_head(const scan_result& r, std::size_t layer, std::size_t head)
{
    for (const auto& h : r.heads)
        if (h.layer == layer && h.head == head) return h;
    BOOST_FAIL("no head L" << layer << "H" << head << " in the scan");
    throw;
}

/// Calls f(planted model, its scan) for every layout and dtype, with both named in failures.
template <class F>
void for_each_model(F f)
{
    for (const auto layout : layouts)
        for (const auto dtype : dtypes) BOOST_TEST_CONTEXT(qkov::test::layout_name(layout) << " " << qkov::test::config_name(dtype))
            {
                const auto s = scan_planted(layout, dtype);
                BOOST_TEST_REQUIRE(s.result.heads.size() == s.model.planted.size());
                f(s);
            }
}

/// sigma_2 / sigma_1 of a spectrum: 0 for an exactly rank-1 circuit.
double second_over_first(const vector& s) { return s(1) / s(0); }

} // namespace

BOOST_AUTO_TEST_CASE(the_planted_models_read_back_as_written)
{
    for_each_model([](const scanned& s) {
        const auto& c = s.config;
        BOOST_TEST(c.hidden_size == D);
        BOOST_TEST(c.head_dim == d);
        BOOST_TEST(c.heads == s.model.heads);
        BOOST_TEST(c.kv_heads == (s.model.layout == planted_layout::llama_gqa ? 4u : c.heads));
        BOOST_TEST(c.rope.has_value() == (s.model.layout != planted_layout::gpt2));
        if (c.rope) {
            BOOST_TEST(c.rope->rotary_dim == s.model.rotary_dim);
            BOOST_TEST(c.rope->base == s.model.base);
            BOOST_TEST(s.model.slow_pairs.size() >= 2u);  // the semantic head needs at least two slow pairs
        }
        BOOST_TEST(s.result.copying_available);
    });
}

/// The one-direction heads (uniform, previous_token) have W_q and W_k of rank 1 and a rank-1 QK
/// circuit, in both dtypes: their factors are bf16 values times +-1/8.
BOOST_AUTO_TEST_CASE(one_direction_heads_are_rank_one)
{
    for_each_model([](const scanned& s) {
        for (const auto& p : s.model.planted) {
            if (p.kind != "uniform" && p.kind != "previous_token") continue;
            BOOST_TEST_CONTEXT("L" << p.layer << "H" << p.head << " " << p.kind)
            {
                const auto& h = find_head(s.result, p.layer, p.head);
                BOOST_TEST(h.q.rank == 1u);
                BOOST_TEST(h.k.rank == 1u);
                BOOST_TEST(!h.q.condition.has_value());
                BOOST_TEST(second_over_first(h.qk.singular_values) < 1e-14);
            }
        }
    });
}

/// The semantic head's W_q and W_k are random in the two rows of each slow pair only.
BOOST_AUTO_TEST_CASE(semantic_heads_have_the_rank_of_their_slow_rows)
{
    for_each_model([](const scanned& s) {
        for (const auto& p : s.model.planted) {
            if (p.kind != "semantic") continue;
            const auto& h = find_head(s.result, p.layer, p.head);
            BOOST_TEST(h.q.rank == 2 * s.model.slow_pairs.size());
            BOOST_TEST(h.k.rank == 2 * s.model.slow_pairs.size());
        }
    });
}

/// The copy head's OV circuit is an orthogonal projection onto a d-dim subspace of the embedding's
/// span: singular values all 1, distance from the identity exactly the sqrt(D - d) floor, and a
/// copying score of 1 (the eigenvalues of P^T W_E^T W_U P, W_U a positive multiple of W_E).
BOOST_AUTO_TEST_CASE(copy_heads_project_and_copy)
{
    for_each_model([](const scanned& s) {
        std::size_t found = 0;
        for (const auto& p : s.model.planted) {
            if (p.kind != "copy") continue;
            ++found;
            const auto& h = find_head(s.result, p.layer, p.head);
            for (std::size_t i = 0; i < d; ++i) BOOST_TEST(std::abs(h.ov.singular_values(i) - 1) < 1e-13);
            BOOST_TEST(std::abs(h.ov_identity_distance - std::sqrt(double(D - d))) < 1e-12);
            BOOST_TEST(std::abs(h.ov_identity_distance - h.ov_identity_floor) < 1e-12);
            BOOST_TEST_REQUIRE(h.copying_score.has_value());
            BOOST_TEST(*h.copying_score > 0.99);
            BOOST_TEST(std::abs(*h.copying_score - 1) < 1e-12);
        }
        BOOST_TEST(found == 1u);
    });
}

/// Random heads: full rank, a QK circuit far from rank 1, and no copying.
BOOST_AUTO_TEST_CASE(random_heads_show_no_planted_structure)
{
    std::size_t random = 0;
    double highest_copying = -1;
    for_each_model([&](const scanned& s) {
        for (const auto& p : s.model.planted) {
            if (p.kind != "random") continue;
            BOOST_TEST_CONTEXT("L" << p.layer << "H" << p.head)
            {
                ++random;
                const auto& h = find_head(s.result, p.layer, p.head);
                BOOST_TEST(h.q.rank == d);
                BOOST_TEST(h.k.rank == d);
                BOOST_TEST(second_over_first(h.qk.singular_values) > 0.1);
                BOOST_TEST_REQUIRE(h.copying_score.has_value());
                BOOST_TEST(*h.copying_score < 0.7);
                highest_copying = std::max(highest_copying, *h.copying_score);
            }
        }
    });
    BOOST_TEST(random >= 30u);
    BOOST_TEST_MESSAGE(random << " random heads, highest copying score " << highest_copying);
}

namespace {

std::vector<std::string> sorted(std::vector<std::string> v)
{
    std::sort(v.begin(), v.end());
    return v;
}

std::string joined(const std::vector<std::string>& v)
{
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return "[" + s + "]";
}

bool undecided_about(const head_metrics& h, const std::string& label)
{
    return std::any_of(h.labels.undecided.begin(), h.labels.undecided.end(), [&](const undecided_label& u) { return u.label == label; });
}

} // namespace

/// Every head of every planted model is found by exactly the seeds' searches its construction calls
/// for: the one-direction heads by rank_one_reading, the slow-pair heads by bottom_heavy, the random
/// ones (and the GQA partners that read nothing special) by none.
BOOST_AUTO_TEST_CASE(each_head_is_found_by_exactly_its_searches)
{
    std::size_t unfound_random = 0;
    for_each_model([&](const scanned& s) {
        for (const auto& p : s.model.planted) {
            const auto& h = find_head(s.result, p.layer, p.head);
            BOOST_TEST(sorted(h.labels.seed_searches) == sorted(p.searches), "L" << p.layer << "H" << p.head << " (" << p.kind << "): found by "
                                                                                  << joined(h.labels.seed_searches) << ", expected " << joined(p.searches));
            if (p.kind == "random" && h.labels.seed_searches.empty()) ++unfound_random;
        }
    });
    BOOST_TEST(unfound_random >= 30u);
}

/// Seed 001's head (equal weight on every pair) has the maximum of its constant's profile certified
/// at offset 1. (An earlier rule also asked for s(1) - runner-up >= 5 % of the profile's range: the
/// gap is set by the fastest pairs while the range grows with the number of pairs, 0.049 at 7 pairs
/// and 0.027 at 64, so that rule rejected the very construction it names.)
BOOST_AUTO_TEST_CASE(previous_token_heads_have_offset_one_certified)
{
    for_each_model([](const scanned& s) {
        for (const auto& p : s.model.planted) {
            if (p.kind != "previous_token") continue;
            const auto& h = find_head(s.result, p.layer, p.head);
            BOOST_TEST_REQUIRE(h.structure.profile.has_value());
            BOOST_TEST(h.structure.profile->best == 1u);
        }
    });
}

/// The evidence behind each planted label is the number the construction gives.
BOOST_AUTO_TEST_CASE(planted_evidence_is_the_constructed_value)
{
    for_each_model([](const scanned& s) {
        for (const auto& p : s.model.planted) {
            const auto& h = find_head(s.result, p.layer, p.head);
            const auto& st = h.structure;
            BOOST_TEST_CONTEXT("L" << p.layer << "H" << p.head << " " << p.kind)
            {
                if (p.kind == "uniform" || p.kind == "previous_token") {
                    BOOST_TEST(std::abs(st.one_direction_q - 1) < 1e-9);
                    BOOST_TEST(std::abs(st.one_direction_k - 1) < 1e-9);
                    // Every token has the same norm and the same component along u: the reading is constant.
                    BOOST_TEST_REQUIRE(st.reading_q.has_value());
                    BOOST_TEST_REQUIRE(st.reading_k.has_value());
                    // Constant to rounding: the spread comes from mean(p^2) - mean(p)^2, whose
                    // cancellation leaves about sqrt(eps) = 1.5e-8 of the mean.
                    BOOST_TEST(st.reading_q->variation() < 1e-7);
                    BOOST_TEST(st.reading_k->variation() < 1e-7);
                }
                if (p.kind == "uniform") BOOST_TEST(!st.profile.has_value());  // no RoPE: no offset to prefer
                if (p.kind == "previous_token") {
                    BOOST_TEST_REQUIRE(st.profile.has_value());
                    BOOST_TEST(st.profile->best == 1u);
                    BOOST_TEST_REQUIRE(st.profile->certificate.has_value());
                    const auto& cert = *st.profile->certificate;
                    BOOST_TEST(status_name(cert.status) == std::string("holds"));
                    BOOST_TEST(cert.offset == 1u);
                    BOOST_TEST(cert.last == 4096u);
                    BOOST_TEST(cert.margin_lower > 0);
                    BOOST_TEST(cert.margin_lower <= cert.margin_upper);
                }
                if (p.kind == "semantic" || p.kind == "random query on the slow-pair key") {
                    BOOST_TEST_REQUIRE(st.rope.has_value());
                    BOOST_TEST(st.rope->slow_share > 0.9);
                    std::size_t slow = 0;
                    for (const auto& pair : st.rope->pairs) slow += pair.slow ? 1 : 0;
                    BOOST_TEST(slow == s.model.slow_pairs.size());
                }
                if (p.kind == "copy") {
                    BOOST_TEST_REQUIRE(h.copying_score.has_value());
                    BOOST_TEST(*h.copying_score > 0.99);
                }
            }
        }
    });
}

/// Without the token embedding there is no reading to call constant (rank_one_reading is not
/// given) and no proxy input for the mean field: every label is undecided, none given.
BOOST_AUTO_TEST_CASE(without_embeddings_every_label_is_undecided)
{
    for (const auto layout : layouts)
        BOOST_TEST_CONTEXT(qkov::test::layout_name(layout))
        {
            const auto s = scan_planted(layout, stored_dtype::f32, false);
            BOOST_TEST(!s.result.copying_available);
            for (const auto& p : s.model.planted) {
                const auto& h = find_head(s.result, p.layer, p.head);
                BOOST_TEST(h.labels.labels.empty(), "L" << p.layer << "H" << p.head << " labelled " << joined(h.labels.labels));
                BOOST_TEST(h.labels.seed_searches.empty() == (p.kind != "semantic" && p.kind != "random query on the slow-pair key"));
                for (const char* l : {"previous_token", "positional", "sink", "semantic", "copy", "copy_suppression"})
                    BOOST_TEST(undecided_about(h, l), "L" << p.layer << "H" << p.head << " " << l);
            }
        }
}

/// A logit added to every token alike changes no prediction, so a head whose OV circuit only moves
/// the component every token embedding shares copies nothing. With that component large (2 u
/// instead of u / 4: W_E^T W_U is then 32768 along u against about 400 elsewhere), the uncentred
/// eigenvalue copying score of one random head of ten here is 0.78, over the copy threshold; the
/// centred score the copy label reads discounts it.
BOOST_AUTO_TEST_CASE(a_shared_embedding_direction_does_not_raise_the_centred_score)
{
    const auto s = scan_planted(planted_layout::gpt2, stored_dtype::f32, true, 2.0f);
    std::vector<std::string> copying;
    for (const auto& p : s.model.planted) {
        const auto& h = find_head(s.result, p.layer, p.head);
        BOOST_TEST_REQUIRE(h.centred_copying_score.has_value());
        if (p.kind == "random" && *h.centred_copying_score >= label_thresholds{}.copying)
            copying.push_back("L" + std::to_string(p.layer) + "H" + std::to_string(p.head) + " " + std::to_string(*h.centred_copying_score));
    }
    BOOST_TEST(copying.empty(), "random heads with a centred score over the copy threshold: " << joined(copying));
}

// The Llama-GQA model's file relabelled as SmolLM3 with layer 2 NoPE: layer 2's heads are scanned
// without RoPE (no per-pair structure, no offset profile), the rotating layers exactly as before.
BOOST_AUTO_TEST_CASE(nope_layer_heads_are_scanned_without_rope)
{
    auto m = qkov::test::write_planted_model(planted_layout::llama_gqa, stored_dtype::f32);
    const scan_result llama = qkov::runs::scan_model(qkov::runs::open_model(m.dir));
    auto config = nlohmann::json::parse(std::ifstream(m.dir / "config.json"));
    config["model_type"] = "smollm3";
    config["architectures"] = {"SmolLM3ForCausalLM"};
    config["no_rope_layers"] = {1, 1, 0};
    std::ofstream(m.dir / "config.json", std::ios::trunc) << config.dump();
    const scan_result smol = qkov::runs::scan_model(qkov::runs::open_model(m.dir));
    std::filesystem::remove_all(m.dir);

    BOOST_TEST_REQUIRE(smol.heads.size() == llama.heads.size());
    std::size_t nope_heads = 0;
    for (std::size_t i = 0; i < smol.heads.size(); ++i) {
        const auto &a = llama.heads[i], &b = smol.heads[i];
        BOOST_TEST_CONTEXT("L" << b.layer << "H" << b.head)
        {
            BOOST_TEST_REQUIRE(a.structure.rope.has_value());  // every head of the Llama file rotates
            if (b.layer == 2) {
                ++nope_heads;
                BOOST_TEST(!b.structure.rope.has_value());
                BOOST_TEST(!b.structure.profile.has_value());
            } else {
                BOOST_TEST_REQUIRE(b.structure.rope.has_value());
                BOOST_TEST(b.structure.rope->slow_share == a.structure.rope->slow_share);
                BOOST_TEST(sorted(b.labels.labels) == sorted(a.labels.labels));
            }
        }
    }
    BOOST_TEST(nope_heads > 0u);
}
