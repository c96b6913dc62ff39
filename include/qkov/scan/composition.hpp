// Q-, K- and V-composition scores between heads of different layers, from d x d cores.
//
// TransformerLens' definition (HookedTransformer.all_composition_scores, after Elhage et al.
// 2021), in its row convention: score = ||W_A W_B||_F / (||W_A||_F ||W_B||_F) with W_A the OV
// circuit W_V W_O of the earlier head and W_B the later head's QK circuit W_Q W_K^T (Q), its
// transpose (K), or its OV circuit (V). In qkov's column convention, with thin QRs
// W_v1^T = Q R_v1, W_q2^T = Q R_q2, W_k2^T = Q R_k2, W_o2 = Q R_o2 (head_measurement.hpp), the
// orthonormal factors drop out of the norms:
//   Q:  ||R_k2 W_q2 W_o1 R_v1^T||_F     K:  ||R_q2 W_k2 W_o1 R_v1^T||_F     V:  ||R_o2 W_v2 W_o1 R_v1^T||_F
// Each is a d x d core; the denominators are the circuits' Frobenius norms, known from their cores.
// Claim T3: the singular values of W_v2 W_o1 (d x d) give the dimension and strength of what
// head 2 reads of what head 1 writes.
//
// One layer pair is one product: the later layer's stack [R_k W_q; R_q W_k; W_v] times the
// earlier layer's D x Hd row of W_o, made a source head's d columns at a time; its d x d blocks
// times R_v1^T are the Q and K cores, and the W_v W_o blocks are T3's matrices, which R_o2 and
// R_v1^T turn into the V cores. With grouped-query attention (G < H key-value heads) the heads of
// a group share W_k and W_v: the stack holds them once per group, [R_k W_q (H blocks); W_k (G);
// W_v (G)], R_q2 is applied to the small W_k W_o1 R_v1^T core afterwards, and T3's singular values
// are those of the group's W_v W_o1, computed once for its heads. Llama-3-8B's stack has 6,144
// rows instead of 12,288, half the work of the layer pair's product, and a quarter of T3's
// problems. Without groups (G = H) the stack is the one above and the scores are its, to the bit.
//
// In float32 (product_precision.hpp) the layer pair's product, the one of size D, runs in float32
// in runs of 256 terms added in float64; the d x d steps after it stay float64. Each score then
// carries a bound on its distance from the float64 scan's (composition_score's q_bound, k_bound,
// v_bound): with P the product's d x d block that makes a core and |A|, |B| the Frobenius norms of
// the stack's d rows and of the source's W_o that make it,
//   |score32 - score64| <= (b(|A|, |B|) ||R_v1||_2 ||R_x||_2 + rest) / (||W_A||_F ||W_B||_F),
// b the product's bound (float32_product_bound), R_x = R_q2 for K with groups, R_o2 for V, none
// otherwise (the norm of a core moves by at most the norm of its change, and ||X R^T||_F <=
// ||X||_F ||R||_2), `rest` both paths' float64 rounding after the product. The spectral norms are
// LAPACK's largest singular values with room (1 + 1e-6): the bound is conditional on its relative
// accuracy being better than that (at d = 128 it is about 1e-14). A layer pair whose weights could
// leave float32's range is made in float64. T3's singular values, from the same float32 block,
// are within b(|A|, |B|) of the float64 scan's (Weyl). The circuits' partners, the one decision
// made from these scores, carry the bounds and are recomputed in float64 (exact_pair) when a
// bound leaves their order or their cut open (circuit_search.hpp).
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include <xtensor/xview.hpp>

#include "qkov/numeric/parallel_blocks.hpp"
#include "qkov/scan/checked_svd.hpp"
#include "qkov/scan/composition_score.hpp"
#include "qkov/scan/head_measurement.hpp"
#include "qkov/scan/float32_runs.hpp"
#include "qkov/scan/product_precision.hpp"

namespace qkov::scan {

/// One layer's side of the composition products. Kept per layer once the layer is scanned: R_v
/// and the norms only; `reads` ((H + 2G)d x D) lives while the layer is the later one of its
/// pairs, and `writes` (D x Hd) is read from the file for each pair it is the earlier layer of
/// (attention_model::layer_output), so a scan holds one layer and a D x D, not every layer's W_o.
struct layer_composition_factors {
    std::size_t layer = 0, heads = 0, d = 0;
    std::size_t groups = 0;         ///< key-value heads G (= heads without grouped-query attention)
    std::vector<std::size_t> group; ///< per head, its key-value head
    matrix reads;              ///< (H + 2G) d x D: the heads' R_k W_q, then per group W_k (R_q W_k per head when G = H) and W_v; empty once only written to
    matrix writes;             ///< D x Hd: the heads' W_o side by side; empty between the pairs that need it
    std::vector<matrix> r_v, r_o, r_q;     ///< per head, R of W_v^T, of W_o and of W_q^T (d x d); r_o and r_q empty once only written to
    std::vector<double> qk_norm, ov_norm;  ///< ||QK||_F and ||OV||_F per head
    // What a float32 scan adds (empty in float64): the stack in float32, the Frobenius norm of each
    // of its d-row blocks, and per head an upper bound on the spectral norms of R_v, R_o and R_q.
    std::vector<float> reads32;
    std::vector<double> read_norms;
    std::vector<double> r_v_norm, r_o_norm, r_q_norm;
};

/// An upper bound on ||r||_2: LAPACK's largest singular value with room (composition's comment).
inline double spectral_norm_bound(const matrix& r) { return r.size() ? (1 + 1e-6) * checked_svd(r).s(0) : 0.0; }

/// D x Hd: the heads' W_o side by side, what a layer writes into the residual stream.
inline matrix written_by(const std::vector<model::head_weights>& heads)
{
    const std::size_t H = heads.size(), d = heads[0].w_o.shape()[1], D = heads[0].w_o.shape()[0];
    matrix writes = xt::empty<double>({D, H * d});
    for (std::size_t h = 0; h < H; ++h)
        for (std::size_t i = 0; i < D; ++i)
            for (std::size_t j = 0; j < d; ++j) writes(i, h * d + j) = heads[h].w_o(i, j);
    return writes;
}

/// A layer's side as the earlier layer of a pair only, without measuring its heads: what a scan of
/// layers A..B reads of the layers before A (scan_model.hpp). ||OV||_F is the norm of the same
/// d x d core R_o R_v^T that measure_head's OV spectrum takes it from, and the Rs come from the
/// same geqrf, so a shard's scores equal the whole scan's to the bit.
inline layer_composition_factors written_factors(const std::vector<model::head_weights>& heads)
{
    layer_composition_factors f;
    if (heads.empty()) return f;
    f.layer = heads[0].layer, f.heads = heads.size(), f.d = heads[0].w_q.shape()[0];
    for (const auto& h : heads) {
        require_finite(h.w_v, h, "W_v"), require_finite(h.w_o, h, "W_o");
        f.r_v.push_back(r_factor_transpose(h.w_v));
        f.ov_norm.push_back(frobenius(multiply(r_factor(h.w_o), f.r_v.back(), false, true)));
        f.r_v_norm.push_back(spectral_norm_bound(f.r_v.back()));
    }
    f.writes = written_by(heads);
    return f;
}

/// A scanned layer's side of its pairs, both as the later and as the earlier layer. `precision`
/// float32 adds what the float32 product and its bound need.
inline layer_composition_factors composition_factors(const std::vector<model::head_weights>& heads, const std::vector<head_factors>& factors,
                                                     const std::vector<head_metrics>& metrics,
                                                     product_precision precision = product_precision::float64)
{
    layer_composition_factors f;
    if (heads.empty()) return f;
    const std::size_t H = heads.size(), d = heads[0].w_q.shape()[0], D = heads[0].w_q.shape()[1];
    f.layer = heads[0].layer, f.heads = H, f.d = d;
    for (const auto& h : heads) f.group.push_back(h.kv_head), f.groups = std::max(f.groups, h.kv_head + 1);
    const std::size_t G = f.groups;
    f.reads = xt::empty<double>({(H + 2 * G) * d, D});  // writes stay empty: read from the file for each pair this layer is the earlier of
    // Each d x D block is d contiguous rows of `reads`: the products land there directly.
    const auto block = [&](std::size_t index) { return f.reads.data() + index * d * D; };
    const auto into = [&](const matrix& r, const matrix& w, double* out) { multiply_into(d, D, d, r.data(), d, false, w.data(), D, false, out, D); };
    for (std::size_t h = 0; h < H; ++h) {
        into(factors[h].k.r, heads[h].w_q, block(h));
        const std::size_t g = heads[h].kv_head;
        if (G == H) into(factors[h].q.r, heads[h].w_k, block(H + g));  // one head per group: R_q W_k in the stack
        else std::copy(heads[h].w_k.begin(), heads[h].w_k.end(), block(H + g));  // the group's heads write the same block
        std::copy(heads[h].w_v.begin(), heads[h].w_v.end(), block(H + G + g));
        f.r_v.push_back(factors[h].v.r);
        f.r_q.push_back(factors[h].q.r);
        f.r_o.push_back(factors[h].o.r);
        f.qk_norm.push_back(metrics[h].qk.frobenius);
        f.ov_norm.push_back(metrics[h].ov.frobenius);
        f.r_v_norm.push_back(spectral_norm_bound(f.r_v.back()));
    }
    if (precision == product_precision::float32) {
        f.reads32 = to_float32(f.reads.data(), f.reads.size());
        for (std::size_t b = 0; b < H + 2 * G; ++b) f.read_norms.push_back(frobenius(std::span<const double>(block(b), d * D)));
        for (std::size_t h = 0; h < H; ++h) f.r_o_norm.push_back(spectral_norm_bound(f.r_o[h])), f.r_q_norm.push_back(spectral_norm_bound(f.r_q[h]));
    }
    return f;
}

/// ||W_A W_B||_F / (||W_A||_F ||W_B||_F), 0 when either circuit is zero.
inline double ratio(double product_norm, double a, double b) { return a == 0 || b == 0 ? 0.0 : product_norm / (a * b); }

/// The narrowest product compose() makes: a block of source heads at least this many columns wide
/// (all of a layer's heads when they are fewer).
inline constexpr std::size_t composition_block_columns = 256;

namespace detail {

/// ||W_o(s)||_F: the Frobenius norm of source s's d columns of `writes` (D x Hd).
inline double written_norm(const matrix& writes, std::size_t s, std::size_t d)
{
    const std::size_t D = writes.shape()[0], width = writes.shape()[1];
    long double sum = 0;
    for (std::size_t i = 0; i < D; ++i)
        for (std::size_t j = 0; j < d; ++j) sum += static_cast<long double>(writes.data()[i * width + s * d + j]) * writes.data()[i * width + s * d + j];
    return static_cast<double>(std::sqrt(sum));
}

/// Scratch for one pair's last steps: the K and V cores a target makes of its group's blocks.
struct pair_scratch {
    matrix k_core, v_core;
    explicit pair_scratch(std::size_t d) : k_core(xt::empty<double>({d, d})), v_core(xt::empty<double>({d, d})) {}
};

/// The three scores of (source s, target t) from its cores, each d x d contiguous: the target's
/// Q core and its group's K and V blocks times R_v1^T (the K block is R_q2 W_k2 W_o1 R_v1^T
/// already when there are no groups). One definition for compose and exact_pair.
inline void scores_from_cores(const double* q_core, const double* k_block, const double* v_block, const layer_composition_factors& earlier,
                              std::size_t s, const layer_composition_factors& later, std::size_t t, pair_scratch& scratch, composition_score& c)
{
    const std::size_t d = later.d;
    const auto norm = [&](const double* b) { return frobenius(std::span<const double>(b, d * d)); };
    c.source_layer = earlier.layer, c.source_head = s, c.target_layer = later.layer, c.target_head = t;
    const double ov_s = earlier.ov_norm[s];
    c.q = ratio(norm(q_core), ov_s, later.qk_norm[t]);
    if (later.groups == later.heads) {
        c.k = ratio(norm(k_block), ov_s, later.qk_norm[t]);  // R_q W_k was in the stack
    } else {
        multiply_into(d, d, d, later.r_q[t].data(), d, false, k_block, d, false, scratch.k_core.data(), d);
        c.k = ratio(norm(scratch.k_core.data()), ov_s, later.qk_norm[t]);
    }
    multiply_into(d, d, d, later.r_o[t].data(), d, false, v_block, d, false, scratch.v_core.data(), d);
    c.v = ratio(norm(scratch.v_core.data()), ov_s, later.ov_norm[t]);
}

/// The bounds of a float32 pair's scores against the float64 scan's (composition's comment): the
/// stack's norms of the target's three blocks, ||W_o(s)||_F = written.
inline void bound_scores(const float32_product_bound& product, double written, const layer_composition_factors& earlier, std::size_t s,
                         const layer_composition_factors& later, std::size_t t, composition_score& c)
{
    const std::size_t d = later.d, H = later.heads, G = later.groups, g = later.group[t];
    const double root_d = std::sqrt(static_cast<double>(d)), rv = earlier.r_v_norm[s];
    // Both paths' float64 rounding after the product, over the matrix products of d terms, the
    // norm of d^2 and the ratio: gamma64 of their depth times what the entries are bounded by
    // (|P|_F <= |A| |B| (1 + eps), |R|_F <= sqrt(d) |R|_2).
    const double after = 2 * gamma_bound<double>(3 * d + d * d + 8) * (1 + product.eps);
    // rx: ||R_x||_2 of the factor the target applies after R_v1^T, when it applies one.
    const auto bound = [&](double a, std::optional<double> rx, double denominator) {
        if (denominator == 0 || earlier.ov_norm[s] == 0) return 0.0;  // both paths give 0
        const double r = rx.value_or(1.0), r_frobenius = rx ? root_d * *rx : 1.0;
        const double error = product(a, written, d, d) * rv * r + after * a * written * root_d * rv * r_frobenius;
        return (1 + 1e-9) * error / (earlier.ov_norm[s] * denominator);
    };
    c.q_bound = bound(later.read_norms[t], std::nullopt, later.qk_norm[t]);
    c.k_bound = bound(later.read_norms[H + g], G == H ? std::nullopt : std::optional(later.r_q_norm[t]), later.qk_norm[t]);
    c.v_bound = bound(later.read_norms[H + G + g], later.r_o_norm[t], later.ov_norm[t]);
}

} // namespace detail

/// Every (source head in `earlier`, target head in `later`) pair, appended to `out`. t3_seconds,
/// when given, gains the time the workers spent on T3's singular values. In float32 the layer
/// pair's product is float32's and each score carries its bound (composition's comment); `later`
/// must then come from composition_factors in float32.
inline void compose(const layer_composition_factors& earlier, const layer_composition_factors& later, std::vector<composition_score>& out,
                    std::atomic<double>* t3_seconds = nullptr, product_precision precision = product_precision::float64)
{
    if (earlier.layer >= later.layer) throw std::invalid_argument("qkov: composition runs from an earlier layer to a later one");
    if (earlier.d != later.d || earlier.writes.shape()[0] != later.reads.shape()[1])
        throw std::invalid_argument("qkov: composition between layers of different widths");
    const std::size_t d = later.d, Ht = later.heads, Hs = earlier.heads, D = later.reads.shape()[1], G = later.groups;
    const std::size_t rows = (Ht + 2 * G) * d;
    std::vector<double> written(Hs);
    for (std::size_t s = 0; s < Hs; ++s) written[s] = detail::written_norm(earlier.writes, s, d);
    const float32_product_bound product_bound(D);
    bool single = precision == product_precision::float32;
    if (single) {
        if (later.reads32.size() != later.reads.size()) throw std::invalid_argument("qkov: a float32 composition needs the later layer's float32 stack");
        long double reads = 0, writes = 0;
        for (const double n : later.read_norms) reads += static_cast<long double>(n) * n;
        for (const double n : written) writes += static_cast<long double>(n) * n;
        single = float32_product_bound::in_range(static_cast<double>(std::sqrt(reads)), static_cast<double>(std::sqrt(writes)));
    }
    const std::vector<float> writes32 = single ? to_float32(earlier.writes.data(), earlier.writes.size()) : std::vector<float>{};
    // The sources are independent: blocks of them on the --threads workers (parallel_blocks.hpp),
    // BLAS on each worker's own thread. A block makes its sources' columns of the layer pair's
    // product in one call, at least composition_block_columns wide: narrower products spend much
    // of their time packing the 3 Ht d x D operand, which every call packs again (with one source
    // of GPT-2's d = 64 per call, a fifth of the scan). The blocks are fixed by the model, so the
    // product's split, and with it every bit of the result, is the same for any thread count
    // (OpenBLAS's own threads split a product by their number, and 3 of them changed T3's last
    // bits against 1); only 3 Ht d x (block width) of it is held per worker. Each block writes its
    // own pairs, in the order a loop would.
    const std::size_t base = out.size();
    out.resize(base + Hs * Ht);
    const std::size_t group = std::min(Hs, std::max<std::size_t>(1, (composition_block_columns + d - 1) / d));
    numeric::for_each_block((Hs + group - 1) / group, [&](std::size_t g) {
        const std::size_t first = g * group, width = std::min(group, Hs - first) * d;
        matrix products = xt::empty<double>({rows, width});  // later.reads times the block's W_o columns
        if (single)
            product_in_float32_runs(rows, width, D, later.reads32.data(), D, writes32.data() + first * d, Hs * d, products.data(), width);
        else
            multiply_into(rows, width, D, later.reads.data(), D, false, earlier.writes.data() + first * d, Hs * d, false, products.data(), width);
        matrix cores = xt::empty<double>({rows, d}), value_block = xt::empty<double>({d, d});
        detail::pair_scratch scratch(d);
        std::vector<std::shared_ptr<const vector>> group_t3(G);
        square_singular_values t3(d);
        std::chrono::steady_clock::duration in_t3{};
        for (std::size_t s = first; s * d < first * d + width; ++s) {
            const double* columns = products.data() + (s - first) * d;  // source s's d columns, row stride `width`
            // Every d x d block times R_v1^T, into contiguous d x d blocks: the heads' Q cores, then
            // per group its K and V blocks.
            multiply_into(rows, d, d, columns, width, false, earlier.r_v[s].data(), d, true, cores.data(), d);
            const auto core = [&](std::size_t index) { return cores.data() + index * d * d; };
            // T3 once per group: the singular values of W_v(group) W_o(s).
            const auto t3_start = std::chrono::steady_clock::now();
            for (std::size_t g = 0; g < G; ++g) {
                for (std::size_t r = 0; r < d; ++r) std::copy_n(columns + ((Ht + G + g) * d + r) * width, d, value_block.data() + r * d);
                group_t3[g] = std::make_shared<const vector>(t3(value_block.data(), d));
            }
            in_t3 += std::chrono::steady_clock::now() - t3_start;
            for (std::size_t t = 0; t < Ht; ++t) {
                composition_score& c = out[base + s * Ht + t];
                const std::size_t g = later.group[t];
                detail::scores_from_cores(core(t), core(Ht + g), core(Ht + G + g), earlier, s, later, t, scratch, c);
                if (single) detail::bound_scores(product_bound, written[s], earlier, s, later, t, c);
                c.t3_spectrum = group_t3[g];
            }
        }
        if (t3_seconds) t3_seconds->fetch_add(std::chrono::duration<double>(in_t3).count());
    });
}

/// One pair's three scores in float64 from the weights (`earlier` with its writes read, `later`
/// with its stack): what a float32 scan recomputes where a bound leaves a decision open. The
/// float64 scan's scores to within its own rounding (one product of the pair's blocks where that
/// scan makes the layer pair's), not necessarily to the bit. No T3 spectrum.
inline composition_score exact_pair(const layer_composition_factors& earlier, std::size_t s, const layer_composition_factors& later, std::size_t t)
{
    if (earlier.writes.size() == 0 || later.reads.size() == 0) throw std::invalid_argument("qkov: a pair's float64 scores need both layers' products");
    const std::size_t d = later.d, H = later.heads, G = later.groups, D = later.reads.shape()[1], g = later.group[t];
    matrix product = xt::empty<double>({d, d}), cores = xt::empty<double>({3 * d, d});
    for (const auto& [i, block] : {std::pair<std::size_t, std::size_t>{0, t}, {1, H + g}, {2, H + G + g}}) {
        multiply_into(d, d, D, later.reads.data() + block * d * D, D, false, earlier.writes.data() + s * d, earlier.heads * d, false, product.data(), d);
        multiply_into(d, d, d, product.data(), d, false, earlier.r_v[s].data(), d, true, cores.data() + i * d * d, d);
    }
    detail::pair_scratch scratch(d);
    composition_score c;
    detail::scores_from_cores(cores.data(), cores.data() + d * d, cores.data() + 2 * d * d, earlier, s, later, t, scratch, c);
    return c;
}

} // namespace qkov::scan
