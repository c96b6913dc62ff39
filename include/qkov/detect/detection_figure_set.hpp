// Every figure of a detection, as `qkov detect --figures` and the Python module's figures() draw
// them: the random tokens' maps and example patterns; with text, the text's (prefix text_) and one
// scatter per score of the text against the random tokens; with a scan, one scatter per predicted
// behaviour against the behaviour on the input the scan predicts (prefix text_ when that is the
// text). One more pass per input keeps the example patterns (example_patterns.hpp).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "qkov/detect/detection_figures.hpp"
#include "qkov/detect/example_patterns.hpp"

namespace qkov::detect {

/// `text` may be null (no text measured), `scanned` null (no scan); `judged` is `random` or `*text`.
/// `unpredicted` gets the behaviours no head of the scan predicts (the caller says so).
template <pattern_source Pass>
std::vector<detection_figure> write_every_detection_figure(const Pass& pass, const detection_result& random, const detection_result* text,
                                                           const std::vector<weight_labels>* scanned, const detection_result& judged,
                                                           const std::filesystem::path& dir, std::vector<std::string>& unpredicted)
{
    auto figures = write_detection_figures(random, example_patterns(pass, random), dir);
    const auto add = [&figures](std::vector<detection_figure> more) {
        for (auto& f : more) figures.push_back(std::move(f));
    };
    if (text) {
        add(write_detection_figures(*text, example_patterns(pass, *text), dir, "text_"));
        add(write_text_beside_random_figures(random, *text, dir));
    }
    if (scanned) add(write_prediction_figures(judged, *scanned, dir, unpredicted, &judged == &random ? "" : "text_"));
    return figures;
}

} // namespace qkov::detect
