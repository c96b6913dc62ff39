// The detection of what heads do from the forward pass, in float32 and float64, compiled once
// (detection_runs.cpp, target qkov_detection_runs) for the command-line tool and the Python module,
// which each instantiated the detection, the own-text sampling and the figures for both dtypes.
// Declarations only: including this header instantiates none of it (it still reads the headers
// of the types it names).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "qkov/detect/detection_figures.hpp"
#include "qkov/detect/detection_run.hpp"
#include "qkov/forward/forward_pass.hpp"

namespace qkov::runs {

// Templates over the decoder's scalar, defined and instantiated for float and double in
// detection_runs.cpp only: a caller links those two.

/// detect::run_detection: the passes on random tokens and text, and the scan's labels judged.
template <class T>
detect::detection_run run_detection(const forward::decoder<T>& pass, const detect::detection_request& r, const detect::input_pairing& pairing);

/// detect::write_every_detection_figure for a finished run, into `dir`; `unpredicted` gains the
/// behaviours no head of the scan predicts (no prediction figure for them).
template <class T>
std::vector<detect::detection_figure> write_detection_figures(const forward::decoder<T>& pass, const detect::detection_run& run,
                                                              const std::filesystem::path& dir, std::vector<std::string>& unpredicted);

} // namespace qkov::runs
