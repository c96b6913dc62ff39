// What a caller asks of a scan (scan_model.hpp runs it): the layers, the callback each scanned
// layer is handed to, the labels' thresholds, whether to certify, the sample sizes and the
// calibration text. Options only: building them needs none of the computation.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "qkov/scan/head_labels.hpp"
#include "qkov/scan/head_metrics.hpp"
#include "qkov/scan/product_precision.hpp"
#include "qkov/scan/scan_progress.hpp"

namespace qkov::scan {

/// The longest context scanned when the caller leaves it to the model: a config may declare 2^40
/// positions, and a positional head's offset profile takes time and memory in proportion.
inline constexpr std::size_t largest_default_context = std::size_t{1} << 20;

struct scan_options {
    /// The layers whose heads are scanned, with every pair whose later head is among them.
    std::size_t first_layer = 0;
    std::optional<std::size_t> last_layer;  ///< inclusive; the model's last layer when unset
    /// Called after each layer with its metrics and what it took (the CLI prints a progress line
    /// with the time left, scan_progress.hpp).
    std::function<void(std::size_t layer, const std::vector<head_metrics>&, const layer_timing&)> on_layer;
    label_thresholds thresholds;    ///< the labels' thresholds (docs/SCAN-LABELS.md)
    bool certify = true;            ///< certify the offset profile of positional RoPE heads
    /// Search every head for circuits through earlier heads (layer_circuits.hpp). Off: no circuit
    /// labels and no heads[].circuits; the mean field, its certificates, copying and composition
    /// are the same (unit.certificates checks only those).
    bool search_circuits = true;
    /// The per-token copying's products (its own and the circuits') and the composition's layer-pair
    /// product: float32 with every decision inside the rounding bound recomputed in float64 (the
    /// float64 scan's shares and partners), or float64 throughout (product_precision.hpp,
    /// token_copying.hpp, composition.hpp).
    product_precision precision = product_precision::float32;
    /// Above 1, widens the composition bounds the circuits' partners are decided by, so that more
    /// of them are decided in float64 (circuit_search_settings::partner_bound_scale); 1 in a scan.
    double partner_bound_scale = 1;
    std::size_t token_sample = 8192;  ///< embedding rows the constant-reading test uses (evenly strided)
    std::size_t absorbed_form_probe = 24;  ///< positions of the B4 check (absorbed_form.hpp)
    /// Token sequences whose positions give mu_l and the content the prediction draws from (at most
    /// thresholds.copy_tokens positions read); empty: the vocabulary in a seeded random context.
    std::vector<std::vector<std::size_t>> calibration;
    std::string calibration_name;  ///< where the calibration came from, for the evidence
    /// The input the labels then predict behaviour on, in scan_json_keys' words (own text, given
    /// sequences); empty: random tokens without a calibration, file + calibration_name with one.
    std::string input;
    /// A directory of shard inputs (shard_inputs.hpp) to read W_E^T W_U, what the pass gives each
    /// scanned layer and the circuit writes at first_layer from, instead of computing them; empty:
    /// computed.
    std::filesystem::path shared_inputs;
    bool keep_proxy_inputs = false;  ///< keep each scanned layer's proxy input in the result (scan_result::proxy_inputs)
};

} // namespace qkov::scan
