// qkov.detect: every head's behaviour from the model's forward pass on repeated random sequences
// (detect/head_detection.hpp) and, when asked, on text (the model's own or given token ids,
// detect/text_detection.hpp), set beside a scan's weight labels on the input the scan predicts
// (detect/input_pairing.hpp, detect/weights_vs_behaviour.hpp), its document as `qkov detect --json`
// writes it (detect/detection_json.hpp) and its figures.
#include "bindings.hpp"
#include "python_interrupt.hpp"

#include <limits>
#include <optional>
#include <vector>

#include <pybind11/stl.h>

#include "qkov/detect/detection_json.hpp"
#include "qkov/detect/detection_markdown.hpp"
#include "qkov/detect/head_detection.hpp"
#include "qkov/detect/input_pairing.hpp"
#include "qkov/detect/scan_labels.hpp"
#include "qkov/detect/scan_labels_of_result.hpp"
#include "qkov/detect/text_detection.hpp"
#include "qkov/detect/weights_vs_behaviour.hpp"
#include "qkov/io/token_id_text.hpp"
#include "qkov/model/model_fingerprint.hpp"
#include "qkov/model/model_summary.hpp"
#include "detection_runs.hpp"
#include "scan_handle.hpp"
#include "token_id_lists.hpp"

namespace qkov::python {

namespace {

struct detection_handle {
    model_pointer model;
    detect::detection_run run;
    nlohmann::json summary;

    /// The random tokens' result, or the text's (a ValueError when no text was measured).
    [[nodiscard]] const detect::detection_result& on(bool on_text) const
    {
        if (on_text && !run.text) throw std::invalid_argument("qkov: this detection measured no text (detect(..., text=\"self\" or token ids))");
        return on_text ? *run.text : run.random;
    }
};

/// The scan to compare with: a scan document's file (as `qkov detect --scan`), or a qkov.Scan in
/// memory, read without writing its document (detect/scan_labels_of_result.hpp).
std::optional<detect::scan_labels> scan_to_compare(const std::optional<std::string>& file, const scan_handle* object, const std::string& name)
{
    if (file) return detect::read_scan_labels(*file);
    if (object) return detect::scan_labels_of(object->result, object->summary, name);
    return std::nullopt;
}

/// What text=... asks for: None, "self" (the model's own text), a path to a file of token ids, or
/// sequences of token ids; text_length only with "self".
detect::text_request text_argument(const py::object& text, std::optional<std::size_t> text_length, const io::model_config& c,
                                   const detect::detection_options& options)
{
    namespace inputs = scan::scan_json_keys;
    detect::text_request request;
    const bool self = py::isinstance<py::str>(text) && text.cast<std::string>() == "self";
    if (text_length && !self) throw std::invalid_argument("qkov: text_length sets the length of the model's own text: it needs text=\"self\"");
    if (text.is_none()) return request;
    if (self) {
        request.input = inputs::input_own_text;
        request.length = text_length.value_or(request.length);
        return request;
    }
    const io::token_id_limits limits{.vocabulary = c.vocab_size, .context = io::calibration_context(c.max_positions, true),
                                     .bos = static_cast<std::size_t>(detect::detection_bos(options, c))};
    if (py::isinstance<py::str>(text) || py::hasattr(text, "__fspath__")) {
        const std::string path = py::str(py::module_::import("os").attr("fspath")(text)).cast<std::string>();
        request.input = inputs::input_file + path;
        request.sequences = detect::text_sequences(io::read_token_id_text(path, limits), detect::detection_bos(options, c), request.input);
    } else {
        request.input = inputs::input_given;
        const auto ids = token_id_lists(text, "text", "None, \"self\", a path to a file of token ids");
        io::check_token_sequences(ids, limits);
        request.sequences = detect::text_sequences(ids, detect::detection_bos(options, c), request.input);
    }
    return request;
}

template <class T>
detect::detection_run detect_with(const forward::decoder<T>& pass, const detect::detection_request& request, const detect::input_pairing& pairing)
{
    detect::check_sequences(pass, request);
    return runs::run_detection(pass, request, pairing);
}

std::shared_ptr<detection_handle> run_detection(const py::object& path_or_model, std::size_t length, std::size_t samples, std::uint64_t seed,
                                                std::optional<forward::token_id> bos, const std::string& dtype, std::optional<std::string> scan_file,
                                                const std::shared_ptr<scan_handle>& scan_object, const std::string& scan_name, std::optional<int> threads,
                                                const py::object& text, std::optional<std::size_t> text_length)
{
    if (dtype != "float32" && dtype != "float64") throw std::invalid_argument("qkov: dtype '" + dtype + "': expected 'float32' or 'float64'");
    if (samples < 1 || samples > detect::largest_samples)  // qkov detect --samples' range
        throw std::invalid_argument("qkov: samples " + std::to_string(samples) + " is out of range, expected an integer in 1.." +
                                    std::to_string(detect::largest_samples));
    if (length < 1) throw std::invalid_argument("qkov: length must be at least 1");
    const blas_threads_for_call blas(threads);
    auto out = std::make_shared<detection_handle>();
    out->model = model_argument(path_or_model);
    const auto& m = out->model->model();
    detect::detection_request request;
    auto& options = request.options;
    options.length = length, options.samples = samples, options.seed = seed, options.bos = bos;
    options.on_sample = [](std::size_t, std::size_t) { raise_pending_signal(); };  // Ctrl-C
    options.on_copying_layer = options.on_sample;
    request.length_option = "length", request.text_length_option = "text_length";
    request.text = text_argument(text, text_length, m.config(), options);  // with the GIL: it reads Python objects
    const py::gil_scoped_release release;
    // The scan is read and checked against the model, and its input against the detection's,
    // before the forward passes, as the CLI does.
    request.scan = scan_to_compare(scan_file, scan_object.get(), scan_name);
    if (request.scan) request.scan_name = scan_file ? *scan_file : scan_name;
    const auto pairing = detect::check_scan_pairing(m, request);  // before the weights are read
    if (!pairing.warning.empty()) {
        const py::gil_scoped_acquire acquire;
        py::module_::import("warnings").attr("warn")("qkov: " + pairing.warning);
    }
    out->run = dtype == "float64" ? detect_with(*out->model->decoder<double>(), request, pairing)
                                  : detect_with(*out->model->decoder<float>(), request, pairing);
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

/// The rule named `name` of a detection (every behaviour it measures: TransformerLens' three
/// scores, sink, the offsets, the repeat shifts, positional, copy, ...), or a ValueError naming
/// those it has.
const detect::behaviour_rule& rule_named(const detect::detection_result& r, const std::string& name)
{
    if (const auto* rule = r.rule(name)) return *rule;
    std::string names;
    for (const auto& rule : r.rules) names += (names.empty() ? "" : ", ") + rule.name;
    throw std::invalid_argument("qkov: no behaviour named '" + name + "'; this detection measures " + names);
}

/// [n_layers, n_heads] of a rule's value (or spread) per head, NaN where a head has none.
py::array_t<double> per_head_of(const detect::detection_result& r, const std::string& name, bool spread)
{
    const auto& rule = rule_named(r, name);
    return per_head(r, [&](const detect::head_behaviour& h) {
        return (spread ? rule.spread(h) : rule.value(h)).value_or(std::numeric_limits<double>::quiet_NaN());
    });
}

/// A path argument as text (str, bytes or os.PathLike).
std::string fspath(const py::object& path) { return py::str(py::module_::import("os").attr("fspath")(path)); }

/// Every figure of the detection written into `dir`, with the GIL released.
std::vector<detect::detection_figure> write_figures(const detection_handle& d, const std::string& dir)
{
    const py::gil_scoped_release release;
    std::vector<std::string> unpredicted;
    return d.run.dtype == "float64" ? runs::write_detection_figures(*d.model->decoder<double>(), d.run, dir, unpredicted)
                                    : runs::write_detection_figures(*d.model->decoder<float>(), d.run, dir, unpredicted);
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
            "to_json", [](const detection_handle& d) { return detect::detection_text(d.run.document(d.summary, d.model->path())); },
            "The detection's document (schema qkov.detect/2), the same text `qkov detect PATH --json FILE` writes for the same path and options.")
        .def(
            "score", [](const detection_handle& d, const std::string& behaviour, bool on_text) { return per_head_of(d.on(on_text), behaviour, false); },
            py::arg("behaviour"), py::arg("text") = false)
        .def(
            "spread", [](const detection_handle& d, const std::string& behaviour, bool on_text) { return per_head_of(d.on(on_text), behaviour, true); },
            py::arg("behaviour"), py::arg("text") = false)
        .def(
            "bos", [](const detection_handle& d, bool on_text) { return per_head(d.on(on_text), [](const detect::head_behaviour& h) { return h.bos.mean; }); },
            py::arg("text") = false)
        .def(
            "shows",
            [](const detection_handle& d, const std::string& behaviour, bool on_text) {
                const auto& r = d.on(on_text);
                (void)rule_named(r, behaviour);
                py::array_t<bool> out({r.layers, r.heads});
                auto a = out.mutable_unchecked<2>();
                for (const auto& h : r.per_head) a(h.layer, h.head) = h.shows(behaviour);
                return out;
            },
            py::arg("behaviour"), py::arg("text") = false)
        .def_property_readonly("behaviours",
                               [](const detection_handle& d) {
                                   std::vector<std::string> names;
                                   for (const auto& r : d.run.random.rules) names.push_back(r.name);
                                   return names;
                               })
        .def_property_readonly("text_input", [](const detection_handle& d) { return d.run.text ? py::object(py::str(d.run.text->input)) : py::object(py::none()); })
        .def(
            "figures",
            [](const detection_handle& d, const py::object& directory) {
                py::list out;
                for (const auto& f : write_figures(d, fspath(directory))) out.append(py::dict(py::arg("file") = f.file, py::arg("caption") = f.caption));
                return out;
            },
            py::arg("directory"))
        .def(
            "markdown",
            [](const detection_handle& d, const py::object& figures) {
                const std::string directory = figures.is_none() ? std::string() : fspath(figures);
                return d.run.markdown(d.model->path(), d.summary, directory.empty() ? std::vector<detect::detection_figure>{} : write_figures(d, directory),
                                      directory);
            },
            py::arg("figures") = py::none(),
            "The report `qkov detect --markdown` writes, as text; with `figures` a directory, the figures written there and linked by "
            "that path (give it relative to where the text goes).");
    m.def("_detect", &run_detection, py::arg("path_or_model"), py::arg("length"), py::arg("samples"), py::arg("seed"), py::arg("bos"), py::arg("dtype"),
          py::arg("scan_file"), py::arg("scan_object"), py::arg("scan_name"), py::arg("threads"), py::arg("text"), py::arg("text_length"));
}

} // namespace qkov::python
