// qkov::scan on planted-head models (planted_models.hpp): in the GPT-2, GPT-NeoX and Llama-GQA
// layouts, float32 and bf16, each planted head shows the structure its construction gives it, and
// no random head looks like anything.
#define BOOST_TEST_MODULE scan_labels
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "planted_models.hpp"
#include "qkov/model/open_model.hpp"
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
    scan_result result;
};

scanned scan_planted(planted_layout layout, stored_dtype dtype, bool with_embeddings = true)
{
    auto m = qkov::test::write_planted_model(layout, dtype, with_embeddings);
    auto r = scan_model(qkov::model::open_model(m.dir));
    return {std::move(m), std::move(r)};
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
        const auto model = qkov::model::open_model(s.model.dir);
        const auto& c = model.config();
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
