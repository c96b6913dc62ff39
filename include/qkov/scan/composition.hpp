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
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <span>
#include <vector>

#include <xtensor/xview.hpp>

#include "qkov/numeric/parallel_blocks.hpp"
#include "qkov/scan/checked_svd.hpp"
#include "qkov/scan/composition_score.hpp"
#include "qkov/scan/head_measurement.hpp"

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
};

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
    }
    f.writes = written_by(heads);
    return f;
}

inline layer_composition_factors composition_factors(const std::vector<model::head_weights>& heads, const std::vector<head_factors>& factors,
                                                     const std::vector<head_metrics>& metrics)
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
    return f;
}

/// ||W_A W_B||_F / (||W_A||_F ||W_B||_F), 0 when either circuit is zero.
inline double ratio(double product_norm, double a, double b) { return a == 0 || b == 0 ? 0.0 : product_norm / (a * b); }

/// The narrowest product compose() makes: a block of source heads at least this many columns wide
/// (all of a layer's heads when they are fewer).
inline constexpr std::size_t composition_block_columns = 256;

/// Every (source head in `earlier`, target head in `later`) pair, appended to `out`. t3_seconds,
/// when given, gains the time the workers spent on T3's singular values.
inline void compose(const layer_composition_factors& earlier, const layer_composition_factors& later, std::vector<composition_score>& out,
                    std::atomic<double>* t3_seconds = nullptr)
{
    if (earlier.layer >= later.layer) throw std::invalid_argument("qkov: composition runs from an earlier layer to a later one");
    if (earlier.d != later.d || earlier.writes.shape()[0] != later.reads.shape()[1])
        throw std::invalid_argument("qkov: composition between layers of different widths");
    const std::size_t d = later.d, Ht = later.heads, Hs = earlier.heads, D = later.reads.shape()[1], G = later.groups;
    const std::size_t rows = (Ht + 2 * G) * d;
    const auto norm = [&](const double* b) { return frobenius(std::span<const double>(b, d * d)); };
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
        multiply_into(rows, width, D, later.reads.data(), D, false, earlier.writes.data() + first * d, Hs * d, false, products.data(), width);
        matrix cores = xt::empty<double>({rows, d}), v_core = xt::empty<double>({d, d}), k_core = xt::empty<double>({d, d}),
               value_block = xt::empty<double>({d, d});
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
                c.source_layer = earlier.layer, c.source_head = s, c.target_layer = later.layer, c.target_head = t;
                const std::size_t g = later.group[t];
                const double ov_s = earlier.ov_norm[s];
                c.q = ratio(norm(core(t)), ov_s, later.qk_norm[t]);
                if (G == Ht) {
                    c.k = ratio(norm(core(Ht + g)), ov_s, later.qk_norm[t]);  // R_q W_k was in the stack
                } else {
                    multiply_into(d, d, d, later.r_q[t].data(), d, false, core(Ht + g), d, false, k_core.data(), d);
                    c.k = ratio(norm(k_core.data()), ov_s, later.qk_norm[t]);
                }
                multiply_into(d, d, d, later.r_o[t].data(), d, false, core(Ht + G + g), d, false, v_core.data(), d);
                c.v = ratio(norm(v_core.data()), ov_s, later.ov_norm[t]);
                c.t3_spectrum = group_t3[g];
            }
        }
        if (t3_seconds) t3_seconds->fetch_add(std::chrono::duration<double>(in_t3).count());
    });
}

} // namespace qkov::scan
