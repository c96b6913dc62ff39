// qkov.detect: every head's behaviour from the model's forward pass on repeated random sequences
// (detect/head_detection.hpp), set beside a scan's weight labels (detect/weights_vs_behaviour.hpp),
// its document as `qkov detect --json` writes it (detect/detection_json.hpp) and its figures.
#include "bindings.hpp"

#include <optional>
#include <vector>

#include <pybind11/stl.h>

#include "qkov/detect/detection_figures.hpp"
#include "qkov/detect/detection_json.hpp"
#include "qkov/detect/example_patterns.hpp"
#include "qkov/detect/head_detection.hpp"
#include "qkov/detect/scan_labels.hpp"
#include "qkov/detect/weights_vs_behaviour.hpp"
#include "qkov/model/model_summary.hpp"

namespace qkov::python {

namespace {

struct detection_handle {
    model_pointer model;
    std::string dtype;
    detect::detection_result result;
    std::vector<detect::weight_labels> scanned;
    std::optional<detect::comparison> compared;
    std::string scan_file;
    nlohmann::json summary;

    [[nodiscard]] detect::detection_document document() const
    {
        detect::detection_document d{summary, dtype, result, compared, scan_file, {}, scan::scan_json_keys::input_random_tokens};
        d.model["path"] = model->path();
        return d;
    }
};

/// The scan to compare with: a scan document's file (as `qkov detect --scan`), or its text and
/// the name the comparison gives it (a qkov.Scan passes its own document).
std::optional<detect::scan_labels> scan_to_compare(const std::optional<std::string>& file, const std::optional<std::string>& text, const std::string& name)
{
    if (file) return detect::read_scan_labels(*file);
    if (!text) return std::nullopt;
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(*text);
    } catch (const nlohmann::json::parse_error& e) {
        throw std::invalid_argument("qkov: scan: not valid JSON (" + std::string(e.what()) + ")");
    }
    return detect::parse_scan_labels(j, name);
}

template <class T>
void detect_with(detection_handle& out, const detect::detection_options& options, const std::optional<detect::scan_labels>& scan)
{
    const auto pass = out.model->decoder<T>();
    out.result = detect::detect_heads(*pass, options);
    if (scan) {
        out.scanned = scan->heads;
        out.compared = detect::compare_weights_with_behaviour(out.scanned, out.result);
    }
}

std::shared_ptr<detection_handle> run_detection(const py::object& path_or_model, std::size_t length, std::size_t samples, std::uint64_t seed,
                                                std::optional<forward::token_id> bos, const std::string& dtype, std::optional<std::string> scan_file,
                                                std::optional<std::string> scan_text, const std::string& scan_name, std::optional<int> threads)
{
    if (dtype != "float32" && dtype != "float64") throw std::invalid_argument("qkov: dtype '" + dtype + "': expected 'float32' or 'float64'");
    if (length < 1) throw std::invalid_argument("qkov: length must be at least 1");
    const blas_threads_for_call blas(threads);
    auto out = std::make_shared<detection_handle>();
    out->model = model_argument(path_or_model);
    out->dtype = dtype;
    const py::gil_scoped_release release;
    const auto& m = out->model->model();
    // The scan is read and checked against the model before the forward passes, as the CLI does.
    auto scan = scan_to_compare(scan_file, scan_text, scan_name);
    if (scan) {
        detect::require_scan_of(*scan, detect::geometry_of(m.config()));
        out->scan_file = scan_file ? *scan_file : scan_name;
    }
    detect::detection_options options;
    options.length = length, options.samples = samples, options.seed = seed, options.bos = bos;
    if (dtype == "float64") detect_with<double>(*out, options, scan);
    else detect_with<float>(*out, options, scan);
    out->summary = model::model_summary(m);
    return out;
}

py::array_t<double> per_head(const detect::detection_result& r, const std::function<double(const detect::head_behaviour&)>& value)
{
    py::array_t<double> out({r.layers, r.heads});
    auto a = out.mutable_unchecked<2>();
    for (const auto& h : r.per_head) a(h.layer, h.head) = value(h);
    return out;
}

std::size_t behaviour_index(const std::string& name)
{
    for (std::size_t k = 0; k < 3; ++k)
        if (name == detect::behaviour_names[k]) return k;
    throw std::invalid_argument("qkov: behaviour '" + name + "': expected previous_token, duplicate_token or induction");
}

} // namespace

void bind_detect(py::module_& m)
{
    // A scan document that does not fit (another model, a head twice, not JSON) is a bad argument.
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const detect::scan_file_error& e) {
            PyErr_SetString(PyExc_ValueError, e.what());
        }
    });
    py::class_<detection_handle, std::shared_ptr<detection_handle>>(m, "_Detection")
        .def_property_readonly("model", [](const detection_handle& d) { return d.model; })
        .def(
            "to_json", [](const detection_handle& d) { return detect::detection_text(d.document()); },
            "The detection's document (schema qkov.detect/2), the same text `qkov detect PATH --json FILE` writes for the same path and options.")
        .def(
            "score", [](const detection_handle& d, const std::string& behaviour) {
                const std::size_t k = behaviour_index(behaviour);
                return per_head(d.result, [k](const detect::head_behaviour& h) { return h.score(k).mean; });
            },
            py::arg("behaviour"))
        .def(
            "spread", [](const detection_handle& d, const std::string& behaviour) {
                const std::size_t k = behaviour_index(behaviour);
                return per_head(d.result, [k](const detect::head_behaviour& h) { return h.score(k).spread; });
            },
            py::arg("behaviour"))
        .def("bos", [](const detection_handle& d) { return per_head(d.result, [](const detect::head_behaviour& h) { return h.bos.mean; }); })
        .def(
            "shows",
            [](const detection_handle& d, const std::string& behaviour) {
                if (d.result.rule(behaviour) == nullptr) throw std::invalid_argument("qkov: no behaviour rule named '" + behaviour + "'");
                py::array_t<bool> out({d.result.layers, d.result.heads});
                auto a = out.mutable_unchecked<2>();
                for (const auto& h : d.result.per_head) a(h.layer, h.head) = h.shows(behaviour);
                return out;
            },
            py::arg("behaviour"))
        .def_property_readonly("behaviours",
                               [](const detection_handle& d) {
                                   std::vector<std::string> names;
                                   for (const auto& r : d.result.rules) names.push_back(r.name);
                                   return names;
                               })
        .def(
            "figures",
            [](const detection_handle& d, const py::object& directory) {
                const std::string dir = py::str(py::module_::import("os").attr("fspath")(directory));
                std::vector<detect::detection_figure> figures;
                {
                    const py::gil_scoped_release release;
                    const auto examples = d.dtype == "float64" ? detect::example_patterns(*d.model->decoder<double>(), d.result)
                                                               : detect::example_patterns(*d.model->decoder<float>(), d.result);
                    figures = detect::write_detection_figures(d.result, examples, dir);
                    if (d.compared) {
                        std::vector<std::string> unpredicted;
                        for (auto& f : detect::write_prediction_figures(d.result, d.scanned, dir, unpredicted)) figures.push_back(std::move(f));
                    }
                }
                py::list out;
                for (const auto& f : figures) out.append(py::dict(py::arg("file") = f.file, py::arg("caption") = f.caption));
                return out;
            },
            py::arg("directory"));
    m.def("_detect", &run_detection, py::arg("path_or_model"), py::arg("length"), py::arg("samples"), py::arg("seed"), py::arg("bos"), py::arg("dtype"),
          py::arg("scan_file"), py::arg("scan_text"), py::arg("scan_name"), py::arg("threads"));
}

} // namespace qkov::python
