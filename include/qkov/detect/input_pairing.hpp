// Which measured behaviour a scan's labels are judged against. A scan's labels predict behaviour on
// one input, which its document names (`"input"`, scan/scan_json_keys.hpp): random tokens (the
// default), the model's own text (`qkov scan --calibrate self`), or a text it was calibrated on (a
// file, or sequences given in Python). A detection measures random tokens always and, when asked,
// text beside them, so a label is judged on the input it predicts:
//   random tokens    against the random tokens (with or without text beside them);
//   own text         against own text: refused when the detection measures none, since the
//                    random tokens are another input and would judge the label on what it does
//                    not claim;
//   a file or given  against the detection's file or given text, with a warning when the two name
//                    different texts (the scan cannot tell whether they are alike); refused without one.
// A document from before the field names no input: its labels were read on random tokens or a
// calibration file, and are judged on random tokens, as they always were.
#pragma once

#include <cstdint>
#include <string>

#include "qkov/detect/scan_labels.hpp"
#include "qkov/scan/scan_json_keys.hpp"

namespace qkov::detect {

/// Which of a detection's measurements a scan's labels are judged against.
enum class judged_on { random_tokens, text };

struct input_pairing {
    judged_on on = judged_on::random_tokens;
    std::string warning;  ///< non-empty: the pairing holds with a caveat the caller prints
};

/// The pairing of a scan whose labels predict `predicted` (scan_input) with a detection whose text
/// is `text` (scan_json_keys' words; empty: random tokens only). A pairing that would judge the
/// labels on another input is a scan_file_error saying what to run.
inline input_pairing pair_scan_with_detection(const std::string& predicted, const std::string& text, const std::string& scan_name)
{
    namespace k = scan::scan_json_keys;
    const auto is_given_text = [](const std::string& input) { return input.starts_with(k::input_file) || input == k::input_given; };
    if (predicted == k::input_random_tokens) return {judged_on::random_tokens, {}};
    if (predicted == k::input_own_text) {
        if (text == k::input_own_text) return {judged_on::text, {}};
        throw scan_file_error("qkov: " + scan_name + " predicts behaviour on the model's own text (qkov scan --calibrate self), but this detection measures " +
                              (text.empty() ? std::string("random tokens only") : text) +
                              ": detect with --text self, or compare a scan of random tokens");
    }
    if (is_given_text(predicted)) {
        if (!is_given_text(text))
            throw scan_file_error("qkov: " + scan_name + " predicts behaviour on the text it was calibrated on (" + predicted +
                                  "), but this detection measures " + (text.empty() ? std::string("random tokens only") : text) +
                                  ": detect with --text FILE on that text");
        if (text != predicted)
            return {judged_on::text, "the scan was calibrated on " + predicted + ", the detection's text is " + text +
                                         ": the labels are judged on the detection's text as if the two were alike"};
        return {judged_on::text, {}};
    }
    throw scan_file_error("qkov: " + scan_name + ": \"input\" is \"" + predicted + "\", none of the inputs a scan's labels predict (\"" +
                          k::input_random_tokens + "\", \"" + k::input_own_text + "\", \"" + k::input_file + "PATH\", \"" + k::input_given + "\")");
}

} // namespace qkov::detect
