// Composed circuits from weights: which token a head's query and key read, and so where it attends
// on a repeat (circuit_evidence.hpp holds the results).
//
// A head h2 reads at a position its own input x_t (offset 0) plus what earlier heads wrote there
// about the token k back (offset_writes.hpp): writes_k. Its side at offset k, for token t:
//   query  q_k(t) = W_q N(writes_k(t))  (k >= 1),  q_0(t) = W_q x_t + b_q,  keys alike with W_k,
// N the layer's norm as it acts on an added vector, g / rho (centred first under LayerNorm: the
// norm's scale g, rho the residual's typical size at the layer, measured by the forward pass). The
// composed token-level QK circuit of a query side k_q and a key side k_k is
//   C[a, b] = (R_delta q_{k_q}(a)) . k_{k_k}(b),
// the score of a query whose token k_q back is a against a key whose token k_k back is b, at
// query-key offset delta (R the layer's RoPE rotation; none without RoPE). On a repeat, the key s =
// k_k - k_q after an earlier occurrence of the query's context holds b = a: the head attends there
// when the diagonal wins its rows. The per-token test, as per-token copying does it for OV rows:
// the share of tokens a whose entry [a, a] is the top-1 (top-5) of their row, and the median
// margin, over the sampled tokens (every token when V is small), at offsets spread over the
// context (RoPE turns the circuit with delta; without RoPE one offset is all there is).
//
// Among the candidates whose diagonal wins for a majority, the one that raises the matching key's
// score most (in nats, median over the tokens) is the head's circuit: the test says whether a side
// matches, the boost how much the head listens to it.
//
// The candidates: s = 0 only through the head's own input on both sides (the direct QK circuit:
// duplicate-token attention; one earlier write on both sides would compare a vector with itself and
// win its diagonal whatever the head does), and every k_q < k_k for s >= 1 (k_q = 0: K-composition;
// k_q >= 1: the query reads the context too, Q- and K-composition together). A candidate is tested
// first on at most 128 evenly strided rows at the middle offset against at most 1,024 keys (those
// rows' own among them) and kept only if a quarter of the rows win; that is a cost bound, the full
// test the evidence. A row that wins against every key wins against a subset, so the bound keeps
// every candidate the same rows would keep against all keys (up to 1,024 tokens the keys are all of
// them and the rows those of the bound before; above, the rows differ a little). Only a kept candidate's sides are
// formed for every token: at GPT-2 small's shape that is a few hundred thousand products per head
// and side instead of every head's S x D x d at every offset.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

#include "qkov/circuits/rope_layout.hpp"
#include "qkov/forward/rope_schedule.hpp"
#include "qkov/io/model_config.hpp"
#include "qkov/labels/vocabulary.hpp"
#include "qkov/model/attention_model.hpp"
#include "qkov/numeric/parallel_blocks.hpp"
#include "qkov/scan/circuit_evidence.hpp"
#include "qkov/scan/offset_writes.hpp"
#include "qkov/scan/thin_qr.hpp"
#include "qkov/scan/token_copying.hpp"

namespace qkov::scan {

struct circuit_search_settings {
    std::size_t window = labels::largest_offset;  ///< side offsets 0 .. W
    std::size_t context = 50;         ///< N: query-key offsets 1 .. N
    std::size_t offsets = 4;          ///< query-key offsets tested under RoPE, spread over s + 1 .. N
    std::size_t prefilter_rows = 128;  ///< the cost bound's queries ...
    std::size_t prefilter_keys = 1024;  ///< ... against this many keys
    double prefilter_share = 0.25;
    double threshold = 0.5;           ///< a majority of the tokens: their key wins
    product_precision copying_precision = product_precision::float64;  ///< of the copying test of what a circuit writes (token_copying.hpp)
    /// Widens the composition scores' bounds the partners are decided by (side_partners): above 1,
    /// more of them are taken from float64 scores; never fewer. 1 in a scan; tests raise it to run
    /// the float64 path on models whose bounds leave every partner decided.
    double partner_bound_scale = 1;
};

/// What a layer's heads read at each side offset, and the weights that turn it into their queries
/// and keys. Sides are formed on demand for the tokens asked for: the cost bound reads a few hundred
/// tokens of every side, the full test all of them for the few candidates that pass. The heads'
/// own W_q and W_k are read in place and a head's weights through the norm made once per head and
/// side (written_weights, d x D): stacked copies of both for every head were 0.54 GB at
/// Llama-3-8B's shape, the circuit search's largest part of a deep layer's heap.
class layer_sides {
public:
    /// `rows` (S x D): the sampled tokens' effective embeddings at the layer; `writes` what the
    /// layers above wrote for the same tokens. Every argument is read, not copied: they outlive it.
    layer_sides(const std::vector<model::head_weights>& heads, const matrix& rows, const offset_writes& writes, const model::norm_weights& norm, double rho)
        : heads_(heads), rows_(rows), writes_(writes), norm_(norm), rho_(rho), d_(heads[0].w_q.shape()[0])
    {
    }
    // A temporary's heads or norm (m.layer(l).heads) would be gone before the sides are read.
    layer_sides(std::vector<model::head_weights>&&, const matrix&, const offset_writes&, const model::norm_weights&, double) = delete;
    layer_sides(const std::vector<model::head_weights>&, const matrix&, const offset_writes&, model::norm_weights&&, double) = delete;

    [[nodiscard]] std::size_t window() const { return writes_.by_offset.size(); }
    [[nodiscard]] std::size_t tokens() const { return rows_.shape()[0]; }
    [[nodiscard]] std::size_t head_dim() const { return d_; }

    /// Head h's W_q (or W_k) through the norm's action (d x D): what its sides at offsets k >= 1
    /// multiply the writes by. The norm acts on an added vector linearly (through_norm_scale), so
    /// W N(v) = W' v with W' = W diag(g / rho), centred along each row under LayerNorm: the writes
    /// are projected as they are, never normed copies of them.
    [[nodiscard]] matrix written_weights(std::size_t h, bool query) const
    {
        matrix through = query ? heads_[h].w_q : heads_[h].w_k;
        const std::size_t D = through.shape()[1];
        for (std::size_t i = 0; i < d_; ++i) {
            double mean = 0;
            for (std::size_t j = 0; j < D; ++j) mean += (through(i, j) *= norm_.weight(j) / rho_);
            mean /= static_cast<double>(D);
            if (norm_.kind == io::norm_kind::layer_norm)
                for (std::size_t j = 0; j < D; ++j) through(i, j) -= mean;
        }
        return through;
    }

    /// Head h's query (or key) side at offset k for the sampled tokens `which` (all of them when
    /// null): |which| x d.
    [[nodiscard]] matrix side(std::size_t h, std::size_t k, bool query, const std::vector<std::size_t>* which) const
    {
        return side(h, k, query, which, k == 0 ? matrix() : written_weights(h, query));
    }
    /// The same with `written` = written_weights(h, query), made once for all of a head's offsets.
    [[nodiscard]] matrix side(std::size_t h, std::size_t k, bool query, const std::vector<std::size_t>* which, const matrix& written) const
    {
        const matrix& input = k == 0 ? rows_ : writes_.by_offset[k - 1];
        const matrix& weights = k == 0 ? (query ? heads_[h].w_q : heads_[h].w_k) : written;
        const std::size_t D = input.shape()[1];
        matrix picked;
        if (which) {
            picked = xt::empty<double>({which->size(), D});
            for (std::size_t r = 0; r < which->size(); ++r)
                for (std::size_t j = 0; j < D; ++j) picked(r, j) = input((*which)[r], j);
        }
        const matrix& in = which ? picked : input;
        const std::size_t n = in.shape()[0];
        matrix out = xt::empty<double>({n, d_});
        if (weights.shape()[0] != d_ || weights.shape()[1] != D) throw std::invalid_argument("qkov: a side's weights are not d x D");
        multiply_into(n, d_, D, in.data(), D, false, weights.data(), D, true, out.data(), d_);
        if (k == 0) {
            const auto& bias = query ? heads_[h].b_q : heads_[h].b_k;
            for (std::size_t t = 0; t < n; ++t)
                for (std::size_t i = 0; i < d_; ++i) out(t, i) += bias.size() ? bias(i) : 0.0;
        }
        return out;
    }

private:
    const std::vector<model::head_weights>& heads_;
    const matrix& rows_;
    const offset_writes& writes_;
    const model::norm_weights& norm_;
    double rho_;
    std::size_t d_;
};

/// The norm's action on an added vector: centred first under LayerNorm, times g / rho.
inline matrix through_norm_scale(const matrix& added, const model::norm_weights& norm, double rho)
{
    matrix out = added;
    const std::size_t S = out.shape()[0], D = out.shape()[1];
    for (std::size_t i = 0; i < S; ++i) {
        double mean = 0;
        if (norm.kind == io::norm_kind::layer_norm) {
            for (std::size_t j = 0; j < D; ++j) mean += out(i, j);
            mean /= static_cast<double>(D);
        }
        for (std::size_t j = 0; j < D; ++j) out(i, j) = (out(i, j) - mean) * norm.weight(j) / rho;
    }
    return out;
}

namespace detail {

/// The rows of q turned by R_delta (query_at_offset's rotation, structure_measurement.hpp).
inline matrix rotated_rows(const matrix& q, const std::optional<io::rope_config>& rope, std::size_t delta)
{
    if (!rope) return q;
    const std::size_t d = q.shape()[1];
    const rope_layout layout{d, rope->rotary_dim, rope->pairing};
    const auto theta = forward::rope_theta<double>(*rope);
    matrix out = q;
    for (std::size_t l = 0; l < layout.pairs(); ++l) {
        const double c = std::cos(static_cast<double>(delta) * theta[l]), s = std::sin(static_cast<double>(delta) * theta[l]);
        const std::size_t a = layout.first(l), b = layout.second(l);
        for (std::size_t t = 0; t < q.shape()[0]; ++t) out(t, a) = c * q(t, a) - s * q(t, b), out(t, b) = c * q(t, b) + s * q(t, a);
    }
    return out;
}

/// The diagonal test of C = queries keys^T, row r's own column r x step (the queries are the
/// step-th of the tokens the keys hold).
inline diagonal_test diagonal_of(const matrix& queries, const matrix& keys, std::size_t step, std::size_t delta)
{
    const std::size_t S = keys.shape()[0], d = keys.shape()[1], rows = queries.shape()[0];
    matrix c = xt::empty<double>({rows, S});
    multiply_into(rows, S, d, queries.data(), d, false, keys.data(), d, true, c.data(), S);
    diagonal_test t;
    t.offset = delta;
    std::size_t top1 = 0, top5 = 0;
    std::vector<double> margins, boosts;
    const double scale = 1 / std::sqrt(static_cast<double>(d));  // the head's own 1 / sqrt(d): boosts in nats
    for (std::size_t r = 0; r < rows; ++r) {
        const std::size_t a = r * step;
        const double own = c(r, a);
        std::size_t above = 0;
        double best = -INFINITY, sum = 0, square = 0;
        for (std::size_t b = 0; b < S; ++b) {
            sum += c(r, b), square += c(r, b) * c(r, b);
            if (b == a) continue;
            above += c(r, b) >= own ? 1 : 0;  // a tie counts against: a head writing nothing matches nothing
            best = std::max(best, c(r, b));
        }
        top1 += above == 0 ? 1 : 0, top5 += above < 5 ? 1 : 0;
        const double mean = sum / static_cast<double>(S), spread = std::sqrt(std::max(0.0, square / static_cast<double>(S) - mean * mean));
        margins.push_back(spread > 0 ? (own - best) / spread : 0.0);
        boosts.push_back((own - mean) * scale);
    }
    t.top1_share = static_cast<double>(top1) / static_cast<double>(std::max<std::size_t>(rows, 1));
    t.top5_share = static_cast<double>(top5) / static_cast<double>(std::max<std::size_t>(rows, 1));
    const auto median = [](std::vector<double>& v) {
        if (v.empty()) return 0.0;
        std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
        return v[v.size() / 2];
    };
    t.median_margin = median(margins), t.median_boost = median(boosts);
    return t;
}

/// The query-key offsets a circuit of shift s is tested at: `count` spread evenly over s + 1 .. N
/// under RoPE; one (N) without it, where the circuit does not turn.
inline std::vector<std::size_t> tested_offsets(int shift, const circuit_search_settings& s, bool rotates)
{
    const std::size_t first = static_cast<std::size_t>(shift) + 1, last = std::max(first, s.context);
    if (!rotates || s.offsets <= 1) return {last};
    std::vector<std::size_t> out;
    for (std::size_t j = 0; j < s.offsets; ++j) {
        const std::size_t delta = first + (last - first) * j / (s.offsets - 1);
        if (out.empty() || out.back() != delta) out.push_back(delta);
    }
    return out;
}

} // namespace detail

/// Every candidate circuit of head h (its index in the layer's sides), strongest first.
inline std::vector<circuit_candidate> circuit_candidates(std::size_t h, const layer_sides& sides, const std::optional<io::rope_config>& rope,
                                                         std::size_t vocabulary, const circuit_search_settings& s)
{
    const std::size_t W = sides.window(), S = sides.tokens();
    // The cost bound's tokens: every key_stride-th as keys (at most prefilter_keys), every
    // query_step-th of those as queries (at most prefilter_rows); none when S is that small.
    const auto ceil_div = [](std::size_t a, std::size_t b) { return (a + b - 1) / std::max<std::size_t>(b, 1); };
    const std::size_t key_stride = std::max<std::size_t>(1, ceil_div(S, s.prefilter_keys));
    const std::size_t query_step = std::max<std::size_t>(1, ceil_div(ceil_div(S, key_stride), s.prefilter_rows));
    const bool bounded = key_stride * query_step > 1;
    std::vector<std::size_t> bound_keys, bound_queries;
    for (std::size_t t = 0; t < S; t += key_stride) bound_keys.push_back(t);
    for (std::size_t r = 0; r < bound_keys.size(); r += query_step) bound_queries.push_back(bound_keys[r]);
    std::vector<matrix> few_queries(W + 1), few_keys(W + 1);
    std::vector<std::optional<matrix>> queries(W + 1), keys(W + 1);  // every token's, formed when a candidate needs them
    const matrix written_q = sides.written_weights(h, true), written_k = sides.written_weights(h, false);
    if (bounded)
        for (std::size_t k = 0; k <= W; ++k)
            few_queries[k] = sides.side(h, k, true, &bound_queries, written_q), few_keys[k] = sides.side(h, k, false, &bound_keys, written_k);
    const auto every = [&](std::vector<std::optional<matrix>>& cache, std::size_t k, bool query) -> const matrix& {
        if (!cache[k]) cache[k] = sides.side(h, k, query, nullptr, query ? written_q : written_k);
        return *cache[k];
    };
    std::vector<circuit_candidate> out;
    for (std::size_t kq = 0; kq <= W; ++kq)
        for (std::size_t kk = kq; kk <= W; ++kk) {
            if (kk == kq && kq != 0) continue;  // one earlier write on both sides compares a vector with itself
            const int shift = static_cast<int>(kk) - static_cast<int>(kq);
            const auto offsets = detail::tested_offsets(shift, s, rope.has_value());
            // The cost bound at the middle offset. A row whose own key wins against every key wins
            // against these, so it lets through every candidate the test on all keys would.
            const std::size_t middle = offsets[offsets.size() / 2];
            if (bounded && detail::diagonal_of(detail::rotated_rows(few_queries[kq], rope, middle), few_keys[kk], query_step, middle).top1_share < s.prefilter_share)
                continue;
            circuit_candidate c;
            c.query.offset = kq, c.key.offset = kk, c.shift = shift, c.tokens = S, c.vocabulary = vocabulary;
            const matrix& q = every(queries, kq, true);
            const matrix& k = every(keys, kk, false);
            for (const std::size_t delta : offsets) c.by_offset.push_back(detail::diagonal_of(detail::rotated_rows(q, rope, delta), k, 1, delta));
            for (const auto& t : c.by_offset) c.top1_share += t.top1_share, c.top5_share += t.top5_share, c.boost += t.median_boost;
            c.top1_share /= static_cast<double>(c.by_offset.size()), c.top5_share /= static_cast<double>(c.by_offset.size());
            c.boost /= static_cast<double>(c.by_offset.size());
            const auto wins = static_cast<std::size_t>(std::llround(c.top1_share * static_cast<double>(S)));
            c.top1_interval = S >= vocabulary ? std::pair{c.top1_share, c.top1_share} : wilson_interval(wins, S);
            out.push_back(std::move(c));
        }
    // By how much the match raises the key's score: the diagonal test is blind to scale (a side
    // carried by heads that barely attend at its offset wins its rows as often as one carried by a
    // previous-token head), the boost is not.
    std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.boost > b.boost; });
    return out;
}

/// A composition score with its bound against the float64 scan's (0 in a float64 scan).
struct bounded_score {
    double value = 0, bound = 0;
};

/// The earlier heads carrying a side at offset k into head (layer, head): weighted by their
/// predicted attention at k times their composition score into the head (`composition(source,
/// key_side)`), strongest first, those with at least a tenth of the largest weight.
///
/// A float32 scan's scores carry bounds: the cut and the order are taken from them only when
/// every bound leaves them as they are; otherwise every weight is taken again from `float64` (the
/// float64 scan's score of the pair, composition.hpp's float64_block) and the float64 scan's
/// partners and shares follow. Decided from the bounds, the shares are float32's, within the
/// bounds' sum over the total of the float64 ones. A weight's bound covers its score's bound times
/// the attention and the rounding of both products (2u of the weight, u = 2^-53, and more).
inline std::vector<circuit_partner> side_partners(const offset_writes& writes, std::size_t k, bool key_side,
                                                  const std::function<bounded_score(const earlier_head&, bool)>& composition,
                                                  const std::function<double(const earlier_head&, bool)>& float64 = {})
{
    std::vector<circuit_partner> out;
    if (k == 0) return out;
    const auto choose = [&](const auto& score) {
        std::vector<circuit_partner> all;
        std::vector<double> bounds;
        double total = 0, largest_low = 0, largest_high = 0;
        for (const auto& e : writes.heads) {
            if (e.attention.size() <= k) continue;
            const bounded_score c = score(e);
            const double weight = e.attention[k] * c.value;
            if (!(c.bound >= 0) || !std::isfinite(c.bound)) return false;  // no bound: nothing decided
            const double bound = c.bound == 0 ? 0.0 : (1 + 1e-12) * e.attention[k] * c.bound + 1e-15 * std::abs(weight);
            all.push_back({e.layer, e.head, e.attention[k], weight});
            bounds.push_back(bound);
            largest_low = std::max(largest_low, weight - bound), largest_high = std::max(largest_high, weight + bound);
        }
        std::vector<std::size_t> order;  // the positive weights, as the float64 scan takes them
        for (std::size_t i = 0; i < all.size(); ++i) {
            const double low = all[i].share - bounds[i], high = all[i].share + bounds[i];
            // Whether a weight near 0 is positive decides the total only (the shares, within the
            // bounds), unless it could reach the cut.
            if (low <= 0 && high > 0 && high >= largest_low / 10) return false;
            if (all[i].share <= 0) continue;
            total += all[i].share;
            order.push_back(i);
        }
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return all[a].share > all[b].share; });
        std::vector<circuit_partner> kept;
        double kept_bound = 0;  // the last kept partner's
        for (const std::size_t i : order) {
            const double low = all[i].share - bounds[i], high = all[i].share + bounds[i];
            if (high < largest_low / 10) continue;         // out whatever the bounds
            if (low < largest_high / 10) return false;     // the cut is open
            // Sorted by weight, disjoint neighbours are disjoint from every later one: the order is decided.
            if (!kept.empty() && kept.back().share - kept_bound <= high && kept_bound + bounds[i] > 0) return false;
            kept.push_back(all[i]);
            kept_bound = bounds[i];
        }
        for (auto& p : kept) p.share /= total;
        out = std::move(kept);
        return true;
    };
    if (choose([&](const earlier_head& e) { return composition(e, key_side); })) return out;
    if (!float64) throw std::logic_error("qkov: a circuit's partners are open under the float32 bounds and there is no float64 score to decide them");
    choose([&](const earlier_head& e) { return bounded_score{float64(e, key_side), 0.0}; });
    return out;
}

} // namespace qkov::scan
