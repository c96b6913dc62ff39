// `qkov scan --calibrate self`: the proxy pass's content rows from text the model writes itself
// (forward/own_text.hpp: seeded, temperature 1, from BOS, through the key/value cache), so the labels
// predict behaviour on the model's own text rather than on random tokens. The sequences become the
// calibration text (scan_options::calibration), read as `--calibrate FILE` reads a file's, and the
// scan names its input "own text" (scan_json_keys::input_own_text). What the CLI and the Python
// module share.
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "qkov/forward/own_text.hpp"
#include "qkov/model/attention_model.hpp"
#include "qkov/scan/scan_json_keys.hpp"
#include "qkov/scan/scan_options.hpp"

namespace qkov::scan {

/// How much own text the scan calibrates on. 20 sequences of 100 tokens: 2,000 positions, within the
/// 4,096 the calibration reads, each as long as the detection's default sequences. Seed 1, where
/// `qkov detect --text self` defaults to seed 0: the labels are then judged on texts they were not
/// read from.
struct own_text_calibration {
    std::size_t sequences = 20, length = 100;
    std::uint64_t seed = 1;
};

/// Samples the model's own text with the model's BOS and sets it as o's calibration; `option` names
/// the setting in errors (--calibrate-length). The pass is streamed, as the scan's is: one layer is
/// held at a time, whatever the model's size, and each token reads every layer once for all sequences.
inline void calibrate_on_own_text(const model::attention_model& m, const own_text_calibration& c, scan_options& o, const std::string& option)
{
    const auto& config = m.config();
    if (!config.bos_token_id) throw std::invalid_argument("qkov: --calibrate self writes text from BOS, but the model declares no BOS token (bos_token_id)");
    if (c.sequences == 0) throw std::invalid_argument("qkov: --calibrate self needs at least one sequence");
    const forward::decoder<double> pass(m, forward::weight_residence::streamed);  // a file without the whole pass: its error names what it lacks
    forward::check_own_text_length(pass, c.length, option);
    // The calibration reads at most copy_tokens positions past BOS (proxy_pass.hpp's text_inputs):
    // text past them would be written and never read.
    const std::size_t most = o.thresholds.copy_tokens;
    if (c.sequences > most / c.length)
        throw std::invalid_argument("qkov: --calibrate self: " + std::to_string(c.sequences) + " sequences of " + std::to_string(c.length) +
                                    " tokens are more than the " + std::to_string(most) + " positions the calibration reads (--calibrate-samples x " +
                                    option + ")");
    const auto text = forward::sample_own_text(
        pass, {.sequences = c.sequences, .length = c.length, .seed = c.seed, .bos = static_cast<forward::token_id>(*config.bos_token_id)});
    o.calibration.clear();
    for (const auto& s : text) o.calibration.emplace_back(s.begin(), s.end());
    o.calibration_name = "the model's own text (" + std::to_string(c.sequences) + " sequences of " + std::to_string(c.length) +
                         " tokens written from BOS at temperature 1, seed " + std::to_string(c.seed) + ")";
    o.input = scan_json_keys::input_own_text;
}

} // namespace qkov::scan
