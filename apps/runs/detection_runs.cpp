#include "detection_runs.hpp"

#include "qkov/detect/detection_figure_set.hpp"
#include "qkov/detect/head_detection.hpp"

namespace qkov::runs {

detect::detection_result detect_heads(const forward::decoder<float>& pass, const detect::detection_options& o)
{
    return detect::detect_heads(pass, o);
}

detect::detection_result detect_heads(const forward::decoder<double>& pass, const detect::detection_options& o)
{
    return detect::detect_heads(pass, o);
}

std::optional<detect::detection_result> detect_text(const forward::decoder<float>& pass, const detect::text_request& text, const detect::detection_options& o)
{
    return detect::detect_text(pass, text, o);
}

std::optional<detect::detection_result> detect_text(const forward::decoder<double>& pass, const detect::text_request& text, const detect::detection_options& o)
{
    return detect::detect_text(pass, text, o);
}

std::vector<detect::detection_figure> write_every_detection_figure(const forward::decoder<float>& pass, const detect::detection_result& random,
                                                                   const detect::detection_result* text,
                                                                   const std::vector<detect::weight_labels>* scanned,
                                                                   const detect::detection_result& judged, const std::filesystem::path& dir,
                                                                   std::vector<std::string>& unpredicted)
{
    return detect::write_every_detection_figure(pass, random, text, scanned, judged, dir, unpredicted);
}

std::vector<detect::detection_figure> write_every_detection_figure(const forward::decoder<double>& pass, const detect::detection_result& random,
                                                                   const detect::detection_result* text,
                                                                   const std::vector<detect::weight_labels>* scanned,
                                                                   const detect::detection_result& judged, const std::filesystem::path& dir,
                                                                   std::vector<std::string>& unpredicted)
{
    return detect::write_every_detection_figure(pass, random, text, scanned, judged, dir, unpredicted);
}

} // namespace qkov::runs
