// qkov.scan: the scan of a model's weights (scan/scan_model.hpp), its document as `qkov scan
// --json` writes it (scan/scan_json.hpp), its composition scores as TransformerLens' arrays and its
// figures.
#include "bindings.hpp"
#include "python_interrupt.hpp"

#include <cmath>
#include <limits>
#include <optional>
#include <vector>

#include <pybind11/stl.h>

#include "qkov/io/token_id_text.hpp"
#include "qkov/model/head_name.hpp"
#include "qkov/model/model_summary.hpp"
#include "qkov/scan/scan_facts.hpp"
#include "qkov/scan/scan_figures.hpp"
#include "qkov/scan/scan_json.hpp"
#include "qkov/scan/own_text_calibration.hpp"
#include "qkov/scan/scan_options.hpp"
#include "model_runs.hpp"
#include "scan_handle.hpp"
#include "token_id_lists.hpp"

namespace qkov::python {

namespace {

/// The options qkov.scan and qkov.prepare_shards take, as the tool's scan options: the context and
/// where mu_l and the content come from (`calibrate`, see qkov.scan's docstring). The model's own
/// text is written into options.calibration here (without the GIL: the caller releases it).
struct scan_request {
    scan::scan_options options;
    std::optional<scan::own_text_calibration> self;

    void calibrate_if_asked(const model::attention_model& m)
    {
        if (self) scan::calibrate_on_own_text(m, *self, options, "calibrate_length");
    }
};

scan_request scan_request_of(const model::attention_model& m, std::optional<std::size_t> context, const py::object& calibrate,
                             std::optional<std::size_t> calibrate_samples, std::optional<std::size_t> calibrate_length,
                             std::optional<std::uint64_t> calibrate_seed)
{
    if (context && (*context < 1 || *context > scan::largest_default_context))
        throw std::invalid_argument("qkov: context: " + std::to_string(*context) + " is out of range, expected an integer in 1.." +
                                    std::to_string(scan::largest_default_context));
    scan_request out;
    auto& options = out.options;
    // calibrate: None or "random" (the vocabulary in a seeded random context), "self" (the model's
    // own text, qkov scan --calibrate self), a path to a file of token ids (qkov scan --calibrate
    // FILE), or sequences of token ids.
    const auto named = [&](const char* name) { return py::isinstance<py::str>(calibrate) && calibrate.cast<std::string>() == name; };
    if (!named("self") && (calibrate_samples || calibrate_length || calibrate_seed))
        throw std::invalid_argument("qkov: calibrate_samples, calibrate_length and calibrate_seed set the model's own text: they need calibrate=\"self\"");
    if (named("self")) {
        auto& self = out.self.emplace();
        self.sequences = calibrate_samples.value_or(self.sequences), self.length = calibrate_length.value_or(self.length);
        self.seed = calibrate_seed.value_or(self.seed);
    } else if (!calibrate.is_none() && !named("random")) {
        const io::token_id_limits limits{.vocabulary = m.config().vocab_size,
                                         .context = io::calibration_context(m.config().max_positions, m.config().bos_token_id.has_value()),
                                         .bos = m.config().bos_token_id};
        if (py::isinstance<py::str>(calibrate) || py::hasattr(calibrate, "__fspath__")) {
            options.calibration_name = py::str(py::module_::import("os").attr("fspath")(calibrate)).cast<std::string>();
            options.calibration = io::read_token_id_text(options.calibration_name, limits);
        } else {
            options.calibration = token_id_lists(calibrate, "calibrate", "None, \"random\", \"self\", a path to a file of token ids");
            io::check_token_sequences(options.calibration, limits);
            options.calibration_name = "(" + std::to_string(options.calibration.size()) + " sequences given in Python)";
            options.input = scan::scan_json_keys::input_given;
        }
    }
    options.thresholds.context = context.value_or(0);
    return out;
}

/// A path argument (str or os.PathLike) as text; empty for None.
std::string path_text(const py::object& path)
{
    return path.is_none() ? std::string() : py::str(py::module_::import("os").attr("fspath")(path)).cast<std::string>();
}

std::shared_ptr<scan_handle> run_scan(const py::object& path_or_model, std::optional<std::size_t> first_layer, std::optional<std::size_t> last_layer,
                                      std::optional<int> threads, std::optional<std::size_t> context, const py::object& calibrate,
                                      std::optional<std::size_t> calibrate_samples, std::optional<std::size_t> calibrate_length,
                                      std::optional<std::uint64_t> calibrate_seed, const py::object& shared, const std::string& precision)
{
    const blas_threads_for_call blas(threads);
    auto out = std::make_shared<scan_handle>();
    out->model = model_argument(path_or_model);
    const auto& m = out->model->model();
    auto request = scan_request_of(m, context, calibrate, calibrate_samples, calibrate_length, calibrate_seed);
    auto& options = request.options;
    options.shared_inputs = path_text(shared);
    const auto named_precision = scan::precision_named(precision);
    if (!named_precision) throw std::invalid_argument("qkov: precision: '" + precision + "' is not \"float32\" or \"float64\"");
    options.precision = *named_precision;
    options.on_layer = [](std::size_t, const std::vector<scan::head_metrics>&, const scan::layer_timing&) { raise_pending_signal(); };  // Ctrl-C
    const py::gil_scoped_release release;
    options.first_layer = first_layer.value_or(0);
    options.last_layer = last_layer;
    request.calibrate_if_asked(m);
    out->result = runs::scan_model(m, options);  // checks the layer range against the model
    out->facts = scan::model_facts(out->result);
    out->summary = model::model_summary(m);
    out->first_layer = options.first_layer;
    out->last_layer = last_layer.value_or(m.config().layers - 1);
    return out;
}

void run_prepare_shards(const py::object& path_or_model, const std::vector<std::size_t>& starts, const py::object& directory, std::optional<int> threads,
                        std::optional<std::size_t> context, const py::object& calibrate, std::optional<std::size_t> calibrate_samples,
                        std::optional<std::size_t> calibrate_length, std::optional<std::uint64_t> calibrate_seed)
{
    const blas_threads_for_call blas(threads);
    const auto model = model_argument(path_or_model);
    const auto& m = model->model();
    auto request = scan_request_of(m, context, calibrate, calibrate_samples, calibrate_length, calibrate_seed);
    const std::string dir = path_text(directory);
    const py::gil_scoped_release release;
    request.calibrate_if_asked(m);
    runs::prepare_shard_inputs(m, starts, dir, request.options, [](std::size_t) { raise_pending_signal(); });
}

const scan::composition_score* find_pair(const scan_handle& s, std::size_t sl, std::size_t sh, std::size_t tl, std::size_t th)
{
    for (const auto& p : s.result.composition)
        if (p.source_layer == sl && p.source_head == sh && p.target_layer == tl && p.target_head == th) return &p;
    return nullptr;
}

} // namespace

void bind_scan(py::module_& m)
{
    py::class_<scan_handle, std::shared_ptr<scan_handle>>(m, "_Scan")
        .def_property_readonly("model", [](const scan_handle& s) { return s.model; })
        .def_property_readonly("scanned_layers", [](const scan_handle& s) { return py::make_tuple(s.first_layer, s.last_layer); })
        .def_property_readonly("input", [](const scan_handle& s) { return s.result.input; })
        .def(
            "to_json",
            [](scan_handle& s, const std::string& tensors) {
                // The pairs' SHA-256 once (1.1 GB of tensors at Llama-3-8B's 32 layers), then only renamed.
                if (!s.tensors) s.tensors = scan::composition_tensors_of(s.result, s.summary, tensors);
                auto named = *s.tensors;
                named.file = tensors;
                return scan::scan_document_text(s.result, s.facts, s.summary, s.model->path(), s.first_layer, s.last_layer, named);
            },
            py::arg("tensors"),
            "The scan's document (schema qkov.scan/4) naming its pairs' tensors `tensors`: the same text `qkov scan PATH --json FILE` writes for the "
            "same path and options when `tensors` is FILE's companion name.")
        .def(
            "save",
            [](const scan_handle& s, const std::string& json) {
                scan::write_scan_files(json, s.result, s.facts, s.summary, s.model->path(), s.first_layer, s.last_layer);
                return scan::composition_tensors_name(json);
            },
            py::arg("json"), "Writes the document and its pairs' tensors beside it, as `qkov scan --json JSON` does; returns the tensors' file name.")
        .def(
            "composition",
            [](const scan_handle& s, const std::string& kind) {
                double scan::composition_score::*score = kind == "q" ? &scan::composition_score::q
                                                         : kind == "k" ? &scan::composition_score::k
                                                         : kind == "v" ? &scan::composition_score::v
                                                                       : nullptr;
                if (score == nullptr) throw std::invalid_argument("qkov: composition kind '" + kind + "': expected 'q', 'k' or 'v'");
                const auto& c = s.model->model().config();
                py::array_t<double> out({c.layers, c.heads, c.layers, c.heads});
                std::fill_n(out.mutable_data(), out.size(), std::numeric_limits<double>::quiet_NaN());
                auto a = out.mutable_unchecked<4>();
                for (const auto& p : s.result.composition) a(p.source_layer, p.source_head, p.target_layer, p.target_head) = p.*score;
                return out;
            },
            py::arg("kind"))
        .def(
            "t3",
            [](const scan_handle& s, std::pair<std::size_t, std::size_t> source, std::pair<std::size_t, std::size_t> target) {
                const auto* p = find_pair(s, source.first, source.second, target.first, target.second);
                if (p == nullptr)
                    throw std::invalid_argument("qkov: no composition pair " + model::head_name(source.first, source.second) + " -> " +
                                                model::head_name(target.first, target.second) +
                                                ": a pair runs from a scanned layer to a later scanned layer, between heads of the model");
                return vector_to_numpy(p->t3_singular_values());
            },
            py::arg("source"), py::arg("target"))
        .def_property_readonly("facts",
                               [](const scan_handle& s) {
                                   py::list out;
                                   for (const auto& f : s.facts)
                                       out.append(py::dict(py::arg("claim") = f.claim, py::arg("statement") = f.statement, py::arg("passed") = f.passed,
                                                           py::arg("detail") = f.detail));
                                   return out;
                               })
        .def(
            "figures",
            [](const scan_handle& s, const py::object& directory) {
                const std::string dir = py::str(py::module_::import("os").attr("fspath")(directory));
                std::vector<scan::scan_figure> figures;
                {
                    const py::gil_scoped_release release;
                    figures = scan::write_scan_figures(s.result, dir);
                }
                py::list out;
                for (const auto& f : figures) out.append(py::dict(py::arg("file") = f.file, py::arg("caption") = f.caption));
                return out;
            },
            py::arg("directory"));
    m.def("_scan", &run_scan, py::arg("path_or_model"), py::arg("first_layer"), py::arg("last_layer"), py::arg("threads"), py::arg("context"),
          py::arg("calibrate"), py::arg("calibrate_samples"), py::arg("calibrate_length"), py::arg("calibrate_seed"), py::arg("shared"),
          py::arg("precision"));
    m.def("_prepare_shards", &run_prepare_shards, py::arg("path_or_model"), py::arg("starts"), py::arg("directory"), py::arg("threads"), py::arg("context"),
          py::arg("calibrate"), py::arg("calibrate_samples"), py::arg("calibrate_length"), py::arg("calibrate_seed"));
}

} // namespace qkov::python
