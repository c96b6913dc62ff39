// What the scan reports about one head: the spectra of its QK and OV circuits, the rank and
// condition of W_q and W_k, the OV circuit's distance from the identity, and the evidence and
// labels of head_structure.hpp, mean_field_evidence.hpp, token_copying_result.hpp and
// head_labels.hpp. Result types only, measured by head_measurement.hpp (which says what each
// number means), so what reads or writes them (the JSON, the reports, the facts) needs none of
// the computation.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "qkov/model/head_weights.hpp"
#include "qkov/scan/circuit_evidence.hpp"
#include "qkov/scan/head_labels.hpp"
#include "qkov/scan/head_structure.hpp"
#include "qkov/scan/mean_field_evidence.hpp"
#include "qkov/scan/token_copying_result.hpp"

namespace qkov::scan {

using model::vector;

/// A circuit A B^T known through its factors: its spectrum and how well the SVD reproduces it.
struct circuit_spectrum {
    vector singular_values;       ///< d values, descending
    double frobenius = 0;         ///< ||A B^T||_F, from the core before its SVD
    double residual = 0;          ///< ||(Q_a U) S (Q_b V)^T - A B^T||_F / ||A B^T||_F
    std::string driver;           ///< the LAPACK driver that produced the SVD (checked_svd.hpp)
};

/// Numerical rank and condition number of a d x D projection from its singular values.
struct projection_conditioning {
    std::size_t rank = 0;
    std::optional<double> condition;  ///< nullopt when rank < d
    double tolerance = 0;             ///< max(D, d) * eps(float64) * sigma_max
};

/// Everything the scan reports about one head, plus the factors composition needs.
struct head_metrics {
    std::size_t layer = 0, head = 0, kv_head = 0;
    projection_conditioning q, k;
    circuit_spectrum qk, ov;
    double ov_identity_distance = 0;  ///< ||W_o W_v - I||_F
    double ov_identity_floor = 0;     ///< sqrt(D - d): no rank-d circuit comes closer (claim K2)
    std::optional<double> absorbed_form_gap;  ///< B4: the absorbed form against the rotated scores (RoPE models)
    std::optional<double> copying_score;  ///< set by copying_score.hpp when W_E and W_U exist
    std::optional<double> centred_copying_score;  ///< the same with the unembedding centred (what the copy label reads)
    head_structure structure;             ///< position and content structure of W_q, W_k (head_structure.hpp)
    std::optional<mean_field_evidence> mean_field;   ///< predicted attention on the proxy input (mean_field.hpp)
    std::optional<token_copying> per_token_copying;  ///< per-token copying through the read-out (token_copying.hpp)
    std::optional<circuit_search_result> circuits;   ///< the composed circuits the head could read (circuit_search.hpp); nullopt: not searched
    head_labels labels;                   ///< hypotheses from that evidence (head_labels.hpp)
};

} // namespace qkov::scan
