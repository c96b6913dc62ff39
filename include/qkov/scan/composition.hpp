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
// leave float32's range, or a block whose bounds are not finite, is made in float64. T3's singular
// values come from the same float32 block: their exact values move by at most b(|A|, |B|) with it
// (Weyl), besides the SVD's own rounding in either path; no bound is reported for them. The
// circuits' partners, the one decision made from these scores, carry the bounds, and where a bound
// leaves their cut or their order open the layer pair's blocks are made again in float64 with the
// float64 scan's own calls (float64_block), so with its bits (circuit_search.hpp).
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
    // What a float32 scan's bounds need (empty in float64): the stack in float32 and the Frobenius
    // norm of each of its d-row blocks, per head upper bounds on the spectral norms of R_o and R_q
    // (emptied once only written to), and of R_v.
    std::vector<float> reads32;
    std::vector<double> read_norms;
    std::vector<double> r_v_norm, r_o_norm, r_q_norm;
};

/// An upper bound on ||r||_2 of a square r: LAPACK's largest singular value (values only, as T3's)
/// with room (composition's comment).
inline double spectral_norm_bound(const matrix& r)
{
    if (r.size() == 0) return 0.0;
    if (r.shape()[0] != r.shape()[1]) throw std::invalid_argument("qkov: spectral_norm_bound takes a square matrix");
    return (1 + 1e-6) * square_singular_values(r.shape()[0])(r.data(), r.shape()[1])(0);
}

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
inline layer_composition_factors written_factors(const std::vector<model::head_weights>& heads,
                                                 product_precision precision = product_precision::float64)
{
    layer_composition_factors f;
    if (heads.empty()) return f;
    f.layer = heads[0].layer, f.heads = heads.size(), f.d = heads[0].w_q.shape()[0];
    for (const auto& h : heads) {
        require_finite(h.w_v, h, "W_v"), require_finite(h.w_o, h, "W_o");
        f.r_v.push_back(r_factor_transpose(h.w_v));
        f.ov_norm.push_back(frobenius(multiply(r_factor(h.w_o), f.r_v.back(), false, true)));
        if (precision == product_precision::float32) f.r_v_norm.push_back(spectral_norm_bound(f.r_v.back()));
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
    }
    if (precision == product_precision::float32) {
        for (const auto& r : f.r_v) f.r_v_norm.push_back(spectral_norm_bound(r));
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

/// Scratch for one pair's last steps: the K and V cores a target makes of its group's blocks.
struct pair_scratch {
    matrix k_core, v_core;
    explicit pair_scratch(std::size_t d) : k_core(xt::empty<double>({d, d})), v_core(xt::empty<double>({d, d})) {}
};

/// The three scores of (source s, target t) from its cores, each d x d contiguous: the target's
/// Q core and its group's K and V blocks times R_v1^T (the K block is R_q2 W_k2 W_o1 R_v1^T
/// already when there are no groups).
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

/// One layer pair's products, made block of source heads by block, each block at least
/// composition_block_columns wide (all of a layer's heads when they are fewer): compose() makes
/// every block on the --threads workers; a float32 scan's partners ask blocks again in float64
/// (float64_block), which makes them with the float64 scan's own calls on a worker, so with its
/// bits.
class layer_pair_products {
public:
    layer_pair_products(const layer_composition_factors& earlier, const layer_composition_factors& later, product_precision precision)
        : earlier_(earlier), later_(later), bound_(later.reads.shape()[1])
    {
        if (earlier.layer >= later.layer) throw std::invalid_argument("qkov: composition runs from an earlier layer to a later one");
        if (earlier.d != later.d || earlier.writes.shape()[0] != later.reads.shape()[1])
            throw std::invalid_argument("qkov: composition between layers of different widths");
        const std::size_t d = later.d, Hs = earlier.heads;
        group_ = sources_per_block(Hs, d);
        single_ = precision == product_precision::float32;
        if (!single_) return;
        if (later.reads32.size() != later.reads.size() || earlier.r_v_norm.size() != earlier.heads)
            throw std::invalid_argument("qkov: a float32 composition needs both layers' factors made for float32");
        long double reads = 0, writes = 0;
        for (const double n : later.read_norms) reads += static_cast<long double>(n) * n;
        // ||W_o(s)||_F per source: its d columns of every row, in one pass along the rows. Summed in
        // double (relative error about D d u, far inside the bound's room of 1e-9).
        std::vector<double> squares(Hs, 0.0);
        const double* w = earlier.writes.data();
        for (std::size_t i = 0; i < earlier.writes.shape()[0]; ++i)
            for (std::size_t h = 0; h < Hs; ++h) {
                double row = 0;
                for (std::size_t j = 0; j < d; ++j) row += w[(i * Hs + h) * d + j] * w[(i * Hs + h) * d + j];
                squares[h] += row;
            }
        for (const double q : squares) written_.push_back(std::sqrt(q)), writes += q;
        // A pair whose weights could leave float32's range is made in float64.
        single_ = float32_product_bound::in_range(static_cast<double>(std::sqrt(reads)), static_cast<double>(std::sqrt(writes)));
    }

    /// Source heads a block holds, for an earlier layer of `heads` heads of dimension d.
    [[nodiscard]] static std::size_t sources_per_block(std::size_t heads, std::size_t d)
    {
        return std::min(heads, std::max<std::size_t>(1, (composition_block_columns + d - 1) / d));
    }
    [[nodiscard]] std::size_t blocks() const { return (earlier_.heads + group_ - 1) / group_; }
    [[nodiscard]] std::size_t block_of(std::size_t source) const { return source / group_; }
    [[nodiscard]] std::size_t first_source(std::size_t block) const { return block * group_; }
    [[nodiscard]] std::size_t sources_in(std::size_t block) const { return std::min(group_, earlier_.heads - first_source(block)); }

    /// Block g's pairs (its sources, each with every target, in the order a loop would) into out;
    /// T3's spectra when `spectra` (in_t3 gains their time). A float32 block whose bounds are not
    /// all finite is made again in float64.
    void make(std::size_t g, composition_score* out, bool spectra, std::chrono::steady_clock::duration* in_t3 = nullptr) const
    {
        make(g, out, spectra, in_t3, single_);
        if (!single_) return;
        for (std::size_t i = 0; i < sources_in(g) * later_.heads; ++i)
            if (!std::isfinite(out[i].q_bound) || !std::isfinite(out[i].k_bound) || !std::isfinite(out[i].v_bound)) return make(g, out, spectra, in_t3, false);
    }

private:
    void make(std::size_t g, composition_score* out, bool spectra, std::chrono::steady_clock::duration* in_t3, bool single) const
    {
        const layer_composition_factors &earlier = earlier_, &later = later_;
        const std::size_t d = later.d, Ht = later.heads, Hs = earlier.heads, D = later.reads.shape()[1], G = later.groups;
        const std::size_t rows = (Ht + 2 * G) * d, first = first_source(g), width = sources_in(g) * d;
        // The block's product in one call: narrower products spend much of their time packing the
        // 3 Ht d x D operand, which every call packs again (with one source of GPT-2's d = 64 per
        // call, a fifth of the scan).
        matrix products = xt::empty<double>({rows, width});  // later.reads times the block's W_o columns
        if (single) {
            std::vector<float> columns32(D * width);  // the block's W_o columns in float32, converted on its worker
            for (std::size_t i = 0; i < D; ++i)
                for (std::size_t j = 0; j < width; ++j) columns32[i * width + j] = to_float32(earlier.writes.data()[i * Hs * d + first * d + j]);
            product_in_float32_runs(rows, width, D, later.reads32.data(), D, columns32.data(), width, products.data(), width);
        } else
            multiply_into(rows, width, D, later.reads.data(), D, false, earlier.writes.data() + first * d, Hs * d, false, products.data(), width);
        matrix cores = xt::empty<double>({rows, d}), value_block = xt::empty<double>({d, d});
        detail::pair_scratch scratch(d);
        std::vector<std::shared_ptr<const vector>> group_t3(G);
        square_singular_values t3(d);
        for (std::size_t s = first; s < first + sources_in(g); ++s) {
            const double* columns = products.data() + (s - first) * d;  // source s's d columns, row stride `width`
            // Every d x d block times R_v1^T, into contiguous d x d blocks: the heads' Q cores, then
            // per group its K and V blocks.
            multiply_into(rows, d, d, columns, width, false, earlier.r_v[s].data(), d, true, cores.data(), d);
            const auto core = [&](std::size_t index) { return cores.data() + index * d * d; };
            if (spectra) {  // T3 once per group: the singular values of W_v(group) W_o(s)
                const auto t3_start = std::chrono::steady_clock::now();
                for (std::size_t k = 0; k < G; ++k) {
                    for (std::size_t r = 0; r < d; ++r) std::copy_n(columns + ((Ht + G + k) * d + r) * width, d, value_block.data() + r * d);
                    group_t3[k] = std::make_shared<const vector>(t3(value_block.data(), d));
                }
                if (in_t3) *in_t3 += std::chrono::steady_clock::now() - t3_start;
            }
            for (std::size_t t = 0; t < Ht; ++t) {
                composition_score& c = out[(s - first) * Ht + t];
                const std::size_t k = later.group[t];
                c = composition_score{};
                detail::scores_from_cores(core(t), core(Ht + k), core(Ht + G + k), earlier, s, later, t, scratch, c);
                if (single) detail::bound_scores(bound_, written_[s], earlier, s, later, t, c);
                if (spectra) c.t3_spectrum = group_t3[k];
            }
        }
    }

    const layer_composition_factors &earlier_, &later_;
    float32_product_bound bound_;
    std::size_t group_ = 1;
    bool single_ = false;
    std::vector<double> written_;  ///< ||W_o(s)||_F per source (float32)
};

/// Every (source head in `earlier`, target head in `later`) pair, appended to `out`. t3_seconds,
/// when given, gains the time the workers spent on T3's singular values. In float32 the layer
/// pair's product is float32's and each score carries its bound (composition's comment); `later`
/// must then come from composition_factors in float32.
inline void compose(const layer_composition_factors& earlier, const layer_composition_factors& later, std::vector<composition_score>& out,
                    std::atomic<double>* t3_seconds = nullptr, product_precision precision = product_precision::float64)
{
    const layer_pair_products pair(earlier, later, precision);
    // The sources are independent: blocks of them on the --threads workers (parallel_blocks.hpp),
    // BLAS on each worker's own thread. The blocks are fixed by the model, so the product's split,
    // and with it every bit of the result, is the same for any thread count (OpenBLAS's own
    // threads split a product by their number, and 3 of them changed T3's last bits against 1);
    // only 3 Ht d x (block width) of it is held per worker. Each block writes its own pairs.
    const std::size_t base = out.size();
    out.resize(base + earlier.heads * later.heads);
    numeric::for_each_block(pair.blocks(), [&](std::size_t g) {
        std::chrono::steady_clock::duration in_t3{};
        pair.make(g, out.data() + base + pair.first_source(g) * later.heads, true, &in_t3);
        if (t3_seconds) t3_seconds->fetch_add(std::chrono::duration<double>(in_t3).count());
    });
}

/// The float64 scores (no T3 spectra) of the block of source heads that holds `source`, with
/// every target of `later` (its stack kept), `earlier`'s writes read: the pairs the float64 scan
/// makes, to the bit (the same calls, on a worker as there). What a float32 scan's circuits decide
/// their partners by where a bound leaves them open. Indexed [(source - first) * targets + target],
/// first = the block's first source (returned).
inline std::pair<std::size_t, std::vector<composition_score>> float64_block(const layer_composition_factors& earlier, std::size_t source,
                                                                             const layer_composition_factors& later)
{
    if (earlier.writes.size() == 0 || later.reads.size() == 0) throw std::invalid_argument("qkov: a pair's float64 scores need both layers' products");
    if (source >= earlier.heads) throw std::invalid_argument("qkov: no source head " + std::to_string(source) + " in layer " + std::to_string(earlier.layer));
    const layer_pair_products pair(earlier, later, product_precision::float64);
    const std::size_t g = pair.block_of(source);
    std::vector<composition_score> out(pair.sources_in(g) * later.heads);
    numeric::for_each_block(1, [&](std::size_t) { pair.make(g, out.data(), false); });
    return {pair.first_source(g), std::move(out)};
}

} // namespace qkov::scan
