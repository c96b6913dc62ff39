#include "detection_runs.hpp"

#include "qkov/detect/detection_figure_set.hpp"

namespace qkov::runs {

template <class T>
detect::detection_run run_detection(const forward::decoder<T>& pass, const detect::detection_request& r, const detect::input_pairing& pairing)
{
    return detect::run_detection(pass, r, pairing);
}

template <class T>
std::vector<detect::detection_figure> write_detection_figures(const forward::decoder<T>& pass, const detect::detection_run& run,
                                                              const std::filesystem::path& dir, std::vector<std::string>& unpredicted)
{
    return detect::write_every_detection_figure(pass, run.random, run.text ? &*run.text : nullptr, run.compared ? &run.scanned : nullptr,
                                                run.judged_result(), dir, unpredicted);
}

// The two scalars the tool and the module run the forward pass in.
template detect::detection_run run_detection(const forward::decoder<float>&, const detect::detection_request&, const detect::input_pairing&);
template detect::detection_run run_detection(const forward::decoder<double>&, const detect::detection_request&, const detect::input_pairing&);
template std::vector<detect::detection_figure> write_detection_figures(const forward::decoder<float>&, const detect::detection_run&,
                                                                       const std::filesystem::path&, std::vector<std::string>&);
template std::vector<detect::detection_figure> write_detection_figures(const forward::decoder<double>&, const detect::detection_run&,
                                                                       const std::filesystem::path&, std::vector<std::string>&);

} // namespace qkov::runs
