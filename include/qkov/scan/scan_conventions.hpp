// What each number of a scan means, in the words its JSON and its Markdown report both print, so
// the two say the same thing. Row convention (TransformerLens') in the names, as the JSON uses.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace qkov::scan {

/// (quantity, definition) pairs in a fixed order.
inline std::vector<std::pair<std::string, std::string>> scan_conventions()
{
    return {
        {"rank", "singular values of the D x d W_Q (W_K) above max(D, d) * eps(float64) * sigma_max; cond null below full rank"},
        {"circuits", "QK = W_Q W_K^T, OV = W_V W_O (row convention), spectra from thin QRs of the factors and the SVD of the d x d core"},
        {"copying_score", "Re(sum lambda) / sum |lambda| over the eigenvalues of the d x d product W_O W_U W_E W_V; null without W_E or W_U, or when they all vanish"},
        {"centred_copying_score", "the same with W_U centred over the vocabulary (a logit shift shared by every token removed); the copy label reads it"},
        {"composition", "TransformerLens: ||W_A W_B||_F / (||W_A||_F ||W_B||_F), W_A = OV of the source, W_B = QK (q), QK^T (k) or OV (v) of the target"},
        {"t3_singular_values", "singular values of W_V(target) W_O(source) in the column convention (d x d), descending; from LAPACK dgesdd without "
                               "vectors (dgesvd where it does not converge), which is backward stable: each value is within p(d) * eps(float64) * "
                               "sigma_1 of the exact one of the computed product (LAPACK's error bound, validation not certificate), and the product "
                               "carries float64 rounding of D-term sums, or with thresholds.precision float32 float32 rounding of 256-term sums "
                               "added in float64 (the bound of composition.largest_bound's kind, not reported for the spectra)"},
        {"composition_bounds", "with thresholds.precision float32 every q, k and v composition score is within composition.largest_bound of the "
                               "float64 scan's (a rounding bound, conditional on a conventional GEMM, round to nearest and LAPACK's largest singular "
                               "values to 1e-6); the circuits' partners are decided as float64 decides them"},
        {"composition_tensors", "the pairs' numbers in the safetensors file composition.tensors names, beside this document (its SHA-256 in "
                                "composition.sha256): q_composition, k_composition, v_composition [L, H, L, H] float64 indexed [source layer, source "
                                "head, target layer, target head], t3_singular_values [L, H, L, H, S]; NaN where the document holds no pair and past a "
                                "spectrum's end"},
        {"labels", "hypotheses from the weights, each given only when all of its tests hold, undecided with the reason when the file lacks what a test needs: docs/SCAN-LABELS.md"},
    };
}

} // namespace qkov::scan
