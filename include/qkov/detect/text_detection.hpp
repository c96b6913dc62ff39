// The detection on text, beside the one on random tokens: the model's own text (sampled by
// forward/own_text.hpp, seeded, temperature 1, from BOS) or token-id sequences a caller gives (a
// file read by io/token_id_text.hpp, or sequences from Python). What the CLI and the Python module
// share: what the text is, its checks, and the run (head_detection.hpp's detect_heads_on_text).
#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "qkov/detect/head_detection.hpp"
#include "qkov/forward/own_text.hpp"
#include "qkov/scan/scan_json_keys.hpp"

namespace qkov::detect {

/// What a detection is also to measure on text.
struct text_request {
    std::string input;  ///< scan_json_keys' words: own text, file PATH, given sequences; empty: no text
    std::vector<std::vector<token_id>> sequences;  ///< a file's or a caller's sequences, BOS first (text_sequences); not own text
    std::size_t length = 100;  ///< own text: tokens written after BOS (101-token sequences, as [BOS] + r + r at |r| = 50)
};

/// A caller's sequences as the detection runs them: BOS first where a sequence does not start with
/// it (as the scan's --calibrate reads them), each long enough for the offsets; `name` names the text.
inline std::vector<std::vector<token_id>> text_sequences(const std::vector<std::vector<std::size_t>>& ids, token_id bos, const std::string& name)
{
    if (ids.empty()) throw std::invalid_argument("qkov: " + name + ": no sequence to measure");
    std::vector<std::vector<token_id>> out;
    for (std::size_t k = 0; k < ids.size(); ++k) {
        std::vector<token_id> s;
        if (ids[k].empty() || ids[k].front() != bos) s.push_back(bos);
        for (const std::size_t id : ids[k]) s.push_back(static_cast<token_id>(id));
        if (s.size() < forward::shortest_own_text + 1)
            throw std::invalid_argument("qkov: " + name + ": sequence " + std::to_string(k + 1) + " has " + std::to_string(s.size()) +
                                        " tokens with BOS; the attention by offset 0 .. " + std::to_string(forward::largest_offset) + " needs at least " +
                                        std::to_string(forward::shortest_own_text + 1));
        out.push_back(std::move(s));
    }
    return out;
}

/// The model's own text for a detection: o.samples sequences of `length` tokens after BOS, seeded with o.seed.
template <class T>
std::vector<std::vector<token_id>> own_text_sequences(const forward::decoder<T>& pass, const detection_options& o, std::size_t length)
{
    return forward::sample_own_text(pass, {.sequences = o.samples, .length = length, .seed = o.seed, .bos = detection_bos(o, pass.config())});
}

/// The detection on the text asked for (nullopt when none is): own text sampled here, or the caller's sequences.
template <class T>
std::optional<detection_result> detect_text(const forward::decoder<T>& pass, const text_request& text, const detection_options& o)
{
    if (text.input.empty()) return std::nullopt;
    if (text.input == scan::scan_json_keys::input_own_text) return detect_heads_on_text(pass, own_text_sequences(pass, o, text.length), text.input, o);
    return detect_heads_on_text(pass, text.sequences, text.input, o);
}

} // namespace qkov::detect
