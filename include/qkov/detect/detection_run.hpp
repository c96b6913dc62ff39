// One detection as `qkov detect` and Python's qkov.detect run it: the checks made before any
// forward pass (a wrong argument costs nothing), the passes on repeated random tokens and on text,
// a scan's labels judged on the input they predict, and what the run writes (its document and its
// Markdown; the figures, which read the pass again, are detection_figure_set.hpp's). The tool and
// the module only turn their arguments into a detection_request and say what the run reports.
#pragma once

#include <functional>
#include <type_traits>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "qkov/detect/detection_json.hpp"
#include "qkov/detect/detection_markdown.hpp"
#include "qkov/detect/head_detection.hpp"
#include "qkov/detect/input_pairing.hpp"
#include "qkov/detect/scan_labels.hpp"
#include "qkov/detect/text_detection.hpp"
#include "qkov/detect/weights_vs_behaviour.hpp"
#include "qkov/forward/own_text.hpp"
#include "qkov/model/model_fingerprint.hpp"

namespace qkov::detect {

/// What a detection is asked for. The option names are the caller's words in its errors
/// (`--length` for the tool, `length` for Python).
struct detection_request {
    detection_options options;
    text_request text;                ///< no input: random tokens only
    std::optional<scan_labels> scan;  ///< the scan's labels to judge, when given
    std::string scan_name;            ///< the scan's file, or the name Python gives a Scan object
    std::string scan_argument;        ///< how errors name the scan (the tool: "--scan FILE"); empty: scan_name
    std::string length_option = "--length", text_length_option = "--text-length";
    /// Called between the pass on random tokens and the one on text (the tool says what it found
    /// and what the model writes next).
    std::function<void(const detection_result& random)> after_random_tokens;
};

/// A finished detection: every head on random tokens and, when asked, on text, and the scan's
/// labels against the behaviour of the input they predict.
struct detection_run {
    std::string dtype;  ///< the forward pass's arithmetic, "float32" or "float64"
    detection_result random;
    std::optional<detection_result> text;
    std::vector<weight_labels> scanned;  ///< empty without a scan
    std::string scan_name;
    judged_on judged = judged_on::random_tokens;
    std::optional<comparison> compared;

    [[nodiscard]] const detection_result& judged_result() const { return judged == judged_on::text ? *text : random; }

    /// The document `qkov detect --json` writes: the model's summary with its path.
    [[nodiscard]] detection_document document(nlohmann::json summary, const std::string& model_path) const
    {
        detection_document d{std::move(summary), dtype, random, compared, scan_name, text, judged_result().input};
        d.model["path"] = model_path;
        return d;
    }

    /// The report `qkov detect --markdown` writes, linking `figures` in `figure_directory` (as the
    /// report's reader reaches it; empty: no figures).
    [[nodiscard]] std::string markdown(const std::string& model_path, const nlohmann::json& summary, std::vector<detection_figure> figures,
                                       std::string figure_directory) const
    {
        return detection_markdown({model_path, summary.value("architecture", std::string()), std::move(figures), std::move(figure_directory), scan_name},
                                  random, text ? &*text : nullptr, scanned, compared ? &*compared : nullptr, judged_result());
    }
};

/// The check before the model's weights are read: the scan against the model (its shape and the
/// weights' fingerprint) and its input against the detection's. Returns how the scan's labels are
/// judged (random tokens without a scan); a warning in it is the caller's to say.
inline input_pairing check_scan_pairing(const model::attention_model& m, const detection_request& r)
{
    if (!r.scan) return {};
    require_scan_of(*r.scan, geometry_of(m.config()), model::fingerprint_of(m));
    return pair_scan_with_detection(r.scan->input, r.text.input, r.scan_argument.empty() ? r.scan_name : r.scan_argument);
}

/// The check before any forward pass: the sequences ([BOS] + r + r) within the model's learned
/// positions, and the own text's length.
template <class T>
void check_sequences(const forward::decoder<T>& pass, const detection_request& r)
{
    const std::size_t positions = pass.weights().positions.size() == 0 ? 0 : pass.weights().positions.shape()[0];
    const std::size_t length = r.options.length;
    if (positions != 0 && 2 * length + 1 > positions)
        throw std::invalid_argument("qkov: " + r.length_option + " " + std::to_string(length) + " makes sequences of " + std::to_string(2 * length + 1) +
                                    " tokens, but the model has learned positions for " + std::to_string(positions));
    if (r.text.input == scan::scan_json_keys::input_own_text) forward::check_own_text_length(pass, r.text.length, r.text_length_option);
}

/// The passes (random tokens, then the text when asked) and the comparison, judged as `pairing`
/// (check_scan_pairing's) says.
template <class T>
detection_run run_detection(const forward::decoder<T>& pass, const detection_request& r, const input_pairing& pairing)
{
    detection_run out;
    out.dtype = std::is_same_v<T, double> ? "float64" : "float32";
    out.random = detect_heads(pass, r.options);
    if (r.after_random_tokens) r.after_random_tokens(out.random);
    if (!r.text.input.empty()) out.text = detect_text(pass, r.text, r.options);
    if (r.scan) {
        out.scanned = r.scan->heads, out.scan_name = r.scan_name, out.judged = pairing.on;
        out.compared = compare_weights_with_behaviour(out.scanned, out.judged_result());
    }
    return out;
}

} // namespace qkov::detect
