#include "detection_runs.hpp"

#include "qkov/detect/detection_figure_set.hpp"
#include "qkov/detect/head_detection.hpp"

namespace qkov::runs {

template <class T>
detect::detection_result detect_heads(const forward::decoder<T>& pass, const detect::detection_options& o)
{
    return detect::detect_heads(pass, o);
}

template <class T>
std::optional<detect::detection_result> detect_text(const forward::decoder<T>& pass, const detect::text_request& text, const detect::detection_options& o)
{
    return detect::detect_text(pass, text, o);
}

template <class T>
std::vector<detect::detection_figure> write_every_detection_figure(const forward::decoder<T>& pass, const detect::detection_result& random,
                                                                   const detect::detection_result* text,
                                                                   const std::vector<detect::weight_labels>* scanned,
                                                                   const detect::detection_result& judged, const std::filesystem::path& dir,
                                                                   std::vector<std::string>& unpredicted)
{
    return detect::write_every_detection_figure(pass, random, text, scanned, judged, dir, unpredicted);
}

// The two scalars the tool and the module run the forward pass in.
template detect::detection_result detect_heads(const forward::decoder<float>&, const detect::detection_options&);
template detect::detection_result detect_heads(const forward::decoder<double>&, const detect::detection_options&);
template std::optional<detect::detection_result> detect_text(const forward::decoder<float>&, const detect::text_request&, const detect::detection_options&);
template std::optional<detect::detection_result> detect_text(const forward::decoder<double>&, const detect::text_request&, const detect::detection_options&);
template std::vector<detect::detection_figure> write_every_detection_figure(const forward::decoder<float>&, const detect::detection_result&,
                                                                            const detect::detection_result*, const std::vector<detect::weight_labels>*,
                                                                            const detect::detection_result&, const std::filesystem::path&,
                                                                            std::vector<std::string>&);
template std::vector<detect::detection_figure> write_every_detection_figure(const forward::decoder<double>&, const detect::detection_result&,
                                                                            const detect::detection_result*, const std::vector<detect::weight_labels>*,
                                                                            const detect::detection_result&, const std::filesystem::path&,
                                                                            std::vector<std::string>&);

} // namespace qkov::runs
