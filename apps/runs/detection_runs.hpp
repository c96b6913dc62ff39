// The detection of what heads do from the forward pass, in float32 and float64, compiled once
// (detection_runs.cpp, target qkov_detection_runs) for the command-line tool and the Python module,
// which each instantiated the detection, the own-text sampling and the figures for both dtypes.
// Declarations only: including this header instantiates none of it (it still reads the headers
// of the types it names).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "qkov/detect/detection_figures.hpp"
#include "qkov/detect/detection_options.hpp"
#include "qkov/detect/detection_result.hpp"
#include "qkov/detect/scan_labels.hpp"
#include "qkov/detect/text_detection.hpp"
#include "qkov/forward/forward_pass.hpp"

namespace qkov::runs {

// Templates over the decoder's scalar, defined and instantiated for float and double in
// detection_runs.cpp only: a caller links those two.

/// detect::detect_heads: every head's behaviour on repeated random tokens.
template <class T>
detect::detection_result detect_heads(const forward::decoder<T>& pass, const detect::detection_options& o);

/// detect::detect_text: every head's behaviour on the text asked for, nullopt when none is.
template <class T>
std::optional<detect::detection_result> detect_text(const forward::decoder<T>& pass, const detect::text_request& text, const detect::detection_options& o);

/// detect::write_every_detection_figure: `text` and `scanned` may be null; `judged` is `random` or `*text`.
template <class T>
std::vector<detect::detection_figure> write_every_detection_figure(const forward::decoder<T>& pass, const detect::detection_result& random,
                                                                   const detect::detection_result* text,
                                                                   const std::vector<detect::weight_labels>* scanned,
                                                                   const detect::detection_result& judged, const std::filesystem::path& dir,
                                                                   std::vector<std::string>& unpredicted);

} // namespace qkov::runs
