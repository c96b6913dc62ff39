// What a scan of a model's weights reports (scan_model.hpp computes it): every scanned head's
// metrics, evidence and labels, every composition pair, the thresholds as used and what the mean
// field read. A result type only, so what reads or writes it (the JSON, the Markdown report, the
// figures, the facts) needs none of the computation.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "qkov/model/weight_fingerprint.hpp"
#include "qkov/scan/composition_score.hpp"
#include "qkov/scan/head_labels.hpp"
#include "qkov/scan/head_metrics.hpp"
#include "qkov/scan/scan_json_keys.hpp"

namespace qkov::scan {

/// One scanned layer's proxy input as the certificates read it (proxy_pass.hpp's proxy_layer): kept
/// when the caller asks (scan_options::keep_proxy_inputs), for proxy_dump.hpp.
struct proxy_record {
    std::size_t layer = 0;
    model::matrix normed;  ///< (N + 1) x D, row 0 the BOS position
    model::vector mean;    ///< mu_l
};

struct scan_result {
    std::vector<head_metrics> heads;
    std::vector<composition_score> composition;
    bool copying_available = false;  ///< false when the model lacks W_E or W_U
    std::size_t tokens_sampled = 0, vocabulary = 0;  ///< rows of the embedding behind the constant-reading test
    label_thresholds thresholds;                      ///< as used (context resolved)
    product_precision precision = product_precision::float64;  ///< of the per-token copying's and the composition's bulk products
    std::size_t composition_recomputed = 0;  ///< pairs a float32 scan recomputed in float64 to decide circuits' partners
    std::string proxy_description, proxy_missing;     ///< what the mean field read (proxy_pass.hpp), and what it lacked
    std::string input = scan_json_keys::input_random_tokens;  ///< the input the labels predict behaviour on (scan_json_keys' words)
    std::size_t copy_tokens = 0;                      ///< tokens the per-token copying read (0: none)
    std::vector<proxy_record> proxy_inputs;           ///< per scanned layer with a proxy input, when kept
    std::optional<model::weight_fingerprint> fingerprint;  ///< which model was scanned (its first and last layer's weights)
};

} // namespace qkov::scan
