// The facts a scan states about the claims it checks (kind S of docs/CLAIMS.md), each with the
// numbers it rests on, so `qkov claims` and the report count them like the experiments' facts.
//
// On every model: B1 (the QK SVD's paired channels reproduce Omega), B4 (RoPE models: biases and
// RoPE in one bilinear form per offset, absorbed_form.hpp), B5 (W_Q and W_K are well
// conditioned: below 1000, the bound the claim quotes), K2 (no OV circuit comes closer to the
// identity than sqrt(D - d)). On the seed-head model (seed_head_model.hpp), whose heads are known:
// R7 (seed 001's head is found as a one-direction head and labelled), R12 (seed 000's slow-pair
// head is labelled semantic), T3 (the singular values of W_V^2 W_O^1 count the dimensions passed).
#pragma once

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "qkov/report/number_text.hpp"
#include "qkov/scan/scan_result.hpp"
#include "qkov/scan/seed_head_model_geometry.hpp"

namespace qkov::scan {

struct scan_fact {
    std::string claim;
    std::string statement;
    bool passed = false;
    std::string detail;  ///< the numbers behind it
};

inline std::string number_text(double x) { return report::format("%.3g", x); }

/// What the model facts read of one head: numbers the scan's JSON keeps, so that a merge of
/// shards (scan_merge.hpp) states the facts of the whole scan from the shards' heads.
struct head_fact_inputs {
    double qk_residual = 0;
    std::optional<double> cond_q, cond_k;  ///< nullopt below full rank
    double ov_identity_distance = 0, ov_identity_floor = 0;
    std::optional<double> absorbed_form_gap;  ///< B4, RoPE models
};

inline head_fact_inputs fact_inputs(const head_metrics& h)
{
    return {h.qk.residual, h.q.condition, h.k.condition, h.ov_identity_distance, h.ov_identity_floor, h.absorbed_form_gap};
}

/// B1, B4, B5, K2 on any scanned model.
inline std::vector<scan_fact> model_facts(const std::vector<head_fact_inputs>& heads)
{
    double residual = 0, condition = 0;
    std::size_t deficient = 0, below_floor = 0;
    double closest = INFINITY;
    for (const auto& h : heads) {
        residual = std::max(residual, h.qk_residual);
        for (const auto* c : {&h.cond_q, &h.cond_k}) {
            if (*c) condition = std::max(condition, **c);
            else ++deficient;
        }
        // The floor is a theorem; a distance below it (beyond rounding) would be a wrong metric.
        if (h.ov_identity_distance < h.ov_identity_floor * (1 - 1e-9)) ++below_floor;
        closest = std::min(closest, h.ov_identity_distance / h.ov_identity_floor);
    }
    std::vector<scan_fact> facts{
        {"B1", "every head's QK circuit is reproduced by its SVD's paired channels u_k sigma_k v_k^T (relative residual <= 1e-10)", residual <= 1e-10,
         "largest residual " + number_text(residual) + " over " + std::to_string(heads.size()) + " heads"},
        {"K2", "no head's OV circuit is closer to the identity than sqrt(D - d)", below_floor == 0,
         "closest: " + number_text(closest) + " x the floor; " + std::to_string(below_floor) + " heads below it"},
    };
    double absorbed = 0;
    std::size_t absorbed_heads = 0;
    for (const auto& h : heads)
        if (h.absorbed_form_gap) absorbed = std::max(absorbed, *h.absorbed_form_gap), ++absorbed_heads;
    if (absorbed_heads > 0)
        facts.push_back({"B4", "every head's biases and RoPE reduce to one bilinear form per offset: its scores equal the stored weights' rotated at absolute positions (relative gap <= 1e-12 on probe inputs)",
                         absorbed <= 1e-12, "largest gap " + number_text(absorbed) + " over " + std::to_string(absorbed_heads) + " heads"});
    // B5 is about full-rank projections; a model without any says nothing about it.
    if (deficient < 2 * heads.size())
        facts.push_back({"B5", "every full-rank W_Q and W_K has condition number below 1000", condition < 1000,
                         "largest condition number " + number_text(condition) + "; " + std::to_string(deficient) + " rank-deficient projections have none"});
    return facts;
}

inline std::vector<scan_fact> model_facts(const scan_result& r)
{
    std::vector<head_fact_inputs> heads;
    for (const auto& h : r.heads) heads.push_back(fact_inputs(h));
    return model_facts(heads);
}

/// The claims model_facts can state; a scan's other facts are the seed-head model's, which need
/// its whole scan.
inline bool is_model_fact(const std::string& claim) { return claim == "B1" || claim == "B4" || claim == "B5" || claim == "K2"; }

inline const head_metrics* find_head(const scan_result& r, std::size_t layer, std::size_t head)
{
    for (const auto& h : r.heads)
        if (h.layer == layer && h.head == head) return &h;
    return nullptr;
}

inline bool found_by_search(const head_metrics& h, const std::string& search)
{
    return std::find(h.labels.seed_searches.begin(), h.labels.seed_searches.end(), search) != h.labels.seed_searches.end();
}

/// R7, R12, T3 on the scan of write_seed_head_model's file (all layers).
inline std::vector<scan_fact> seed_head_facts(const scan_result& r)
{
    using g = seed_head_model_geometry;
    std::vector<scan_fact> facts;
    const auto* previous = find_head(r, 0, 0);
    const auto* semantic = find_head(r, 0, 1);
    if (previous == nullptr || semantic == nullptr) throw std::invalid_argument("qkov: the scan lacks layer 0 of the seed-head model");

    const auto& cert = previous->structure.profile ? previous->structure.profile->certificate : std::nullopt;
    const bool r7 = previous->q.rank == 1 && previous->k.rank == 1 && found_by_search(*previous, "rank_one_reading") && cert &&
                    cert->status == certificate_status::holds && cert->offset == 1;
    facts.push_back({"R7", "seed 001's previous-token head, read back from a model file, has rank(W_Q) = rank(W_K) = 1, is found by the search for "
                     "heads reading one constant direction (rank_one_reading), and the constant's score is certified largest at offset 1 over 0.." +
                         std::to_string(g::context),
                     r7,
                     "ranks " + std::to_string(previous->q.rank) + ", " + std::to_string(previous->k.rank) + "; searches found " +
                         std::to_string(previous->labels.seed_searches.size()) + "; certificate " +
                         (cert ? std::string(status_name(cert->status)) + " at offset " + std::to_string(cert->offset) + ", margin >= " + number_text(cert->margin_lower) : "none")});

    const double slow = semantic->structure.rope ? semantic->structure.rope->slow_share : 0.0;
    const bool r12 = semantic->labels.seed_searches == std::vector<std::string>{"bottom_heavy"} && slow >= 0.99 &&
                     previous->labels.seed_searches == std::vector<std::string>{"rank_one_reading"};
    facts.push_back({"R12", "seed 000's semantic head reading the slowest d/8 coordinates is found by the bottom-heavy search (and no other), "
                     "seed 001's positional head is not", r12,
                     "slow-pair share " + number_text(slow) + ", searches found " + std::to_string(semantic->labels.seed_searches.size())});

    // T3: L1H0 reads passed_dimensions of what L0H0 writes, with unit gain, and nothing of L0H1.
    const composition_score* passed = nullptr;
    const composition_score* none = nullptr;
    for (const auto& c : r.composition) {
        if (c.source_layer == 0 && c.target_layer == 1 && c.target_head == 0) (c.source_head == 0 ? passed : none) = &c;
    }
    bool t3 = passed != nullptr && none != nullptr;
    std::size_t nonzero = 0;
    double worst = 0;
    if (t3) {
        for (std::size_t i = 0; i < passed->t3_singular_values().size(); ++i) {
            const double s = passed->t3_singular_values()(i);
            const double expected = i < g::passed_dimensions ? 1.0 : 0.0;
            worst = std::max(worst, std::abs(s - expected));
            nonzero += s > 1e-9 ? 1 : 0;
        }
        for (const double s : none->t3_singular_values()) worst = std::max(worst, std::abs(s));
        t3 = worst <= 1e-12 && nonzero == g::passed_dimensions;
    }
    facts.push_back({"T3", "W_V^2 W_O^1 between the seed-head model's layers has " + std::to_string(g::passed_dimensions) +
                               " unit singular values where layer 1 reads that many of layer 0's dimensions, and none from the head that writes nothing",
                     t3, std::to_string(nonzero) + " nonzero singular values; largest deviation " + number_text(worst)});
    return facts;
}

} // namespace qkov::scan
