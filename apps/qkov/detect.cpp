#include "detect.hpp"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "qkov/detect/detection_figures.hpp"
#include "qkov/detect/example_patterns.hpp"
#include "qkov/forward/forward_pass.hpp"
#include "qkov/io/atomic_file.hpp"
#include "qkov/model/head_name.hpp"
#include "qkov/model/open_model.hpp"
#include "qkov/report/joined_text.hpp"
#include "qkov/report/number_text.hpp"
#include "qkov/report/report_file.hpp"
#include "qkov/report/table.hpp"
#include "model_summary.hpp"
#include "number_options.hpp"
#include "report_paths.hpp"
#include "threads_option.hpp"

namespace qkov::app {

namespace {

using detect::behaviour_names;

using model::head_name;

/// `items` listed in one line, `none` when there are none.
std::string joined(const std::vector<std::string>& items, const char* none = "-") { return items.empty() ? none : report::joined(items); }

std::string score_cell(const detect::score_statistics& s) { return report::format("%.3f ± %.3f", s.mean, s.spread); }

report::table heads_table(const detect::detection_result& r)
{
    report::table t({"head", "previous_token", "duplicate_token", "induction", "shows"},
                    {report::column_alignment::left, report::column_alignment::right, report::column_alignment::right, report::column_alignment::right,
                     report::column_alignment::left});
    for (const auto& h : r.per_head)
        t.add_row({head_name(h.layer, h.head), score_cell(h.previous_token), score_cell(h.duplicate_token), score_cell(h.induction), joined(h.behaviours)});
    return t;
}

report::table side_by_side_table(const std::vector<detect::weight_labels>& scanned, const detect::detection_result& r, const detect::comparison& c)
{
    report::table t({"head", "weight labels", "shows", "verdicts"}, std::vector(4, report::column_alignment::left));
    for (const auto& w : scanned) {
        const auto* h = r.find(w.layer, w.head);
        if (h == nullptr) continue;
        std::vector<std::string> verdicts;
        for (const auto& v : c.verdicts)
            if (v.layer == w.layer && v.head == w.head) verdicts.push_back(v.label + ": " + detect::verdict_name(v.outcome));
        for (const auto& u : c.unexplained)
            if (u.layer == w.layer && u.head == w.head) verdicts.push_back(u.behaviour + ": no weight label");
        if (w.labels.empty() && h->behaviours.empty()) continue;  // nothing on either side
        t.add_row({head_name(w.layer, w.head), joined(w.labels), joined(h->behaviours), joined(verdicts)});
    }
    return t;
}

std::string counts_line(const detect::comparison& c)
{
    return std::to_string(c.heads_compared) + " heads compared: " + std::to_string(c.confirmed) + " weight labels confirmed, " +
           std::to_string(c.contradicted) + " contradicted, " + std::to_string(c.not_tested) + " not tested by these detectors; " +
           std::to_string(c.unexplained.size()) + " behaviours without a weight label";
}

nlohmann::json detection_json(const detect::detection_result& r)
{
    nlohmann::json attainable, thresholds;
    for (std::size_t k = 0; k < 3; ++k) attainable[behaviour_names[k]] = r.attainable[k], thresholds[behaviour_names[k]] = r.threshold(k);
    return {{"sequence", "[BOS] + r + r, r = length distinct token ids drawn without BOS (std::mt19937_64 seeded with seed)"},
            {"length", r.length},
            {"tokens_per_sequence", 2 * r.length + 1},
            {"samples", r.samples},
            {"seed", r.seed},
            {"bos", r.bos},
            {"vocabulary", r.vocabulary},
            {"measure", "TransformerLens' mul: sum(pattern .* template) / sum(pattern), the attention mass on the template averaged over all queries"},
            {"spread", "sample standard deviation over the samples (0 for one sample)"},
            {"attainable", attainable},
            {"behaviour_fraction", r.behaviour_fraction},
            {"thresholds", thresholds}};
}

nlohmann::json comparison_json(const std::string& scan_file, const detect::comparison& c)
{
    nlohmann::json verdicts = nlohmann::json::array(), unexplained = nlohmann::json::array();
    for (const auto& v : c.verdicts)
        verdicts.push_back({{"layer", v.layer}, {"head", v.head}, {"label", v.label}, {"verdict", detect::verdict_name(v.outcome)}, {"reason", v.reason}});
    for (const auto& u : c.unexplained) unexplained.push_back({{"layer", u.layer}, {"head", u.head}, {"behaviour", u.behaviour}, {"mean", u.mean}});
    return {{"scan", scan_file},
            {"rules", "docs/DETECT.md"},
            {"heads_compared", c.heads_compared},
            {"confirmed", c.confirmed},
            {"contradicted", c.contradicted},
            {"not_tested", c.not_tested},
            {"behaviour_without_weight_label", c.unexplained.size()},
            {"verdicts", verdicts},
            {"behaviours_without_weight_label", unexplained}};
}

std::string markdown_report(const std::string& path, const nlohmann::json& summary, const detect::detection_result& r,
                            const std::vector<detect::detection_figure>& figures, const std::string& figure_dir, const std::string& scan_file,
                            const std::vector<detect::weight_labels>& scanned, const std::optional<detect::comparison>& c)
{
    std::ostringstream s;
    s << "# Head detection: " << path << "\n\n";
    s << "Model: " << summary.value("architecture", std::string()) << ", " << r.layers << " layers x " << r.heads << " heads, vocabulary " << r.vocabulary
      << ".\n\n";
    s << "Each head's attention pattern on " << r.samples << " sequences [BOS] + r + r (|r| = " << r.length << " distinct random tokens, seed " << r.seed
      << ", BOS " << r.bos << "), scored with TransformerLens' \"mul\" measure: the attention mass on the template, averaged over all "
      << 2 * r.length + 1 << " queries, as mean ± sample standard deviation. A head *shows* a behaviour when its mean reaches "
      << report::format("%g", r.behaviour_fraction) << " of what that behaviour can reach on these sequences (docs/DETECT.md):\n\n";
    report::table thresholds({"behaviour", "template", "attainable", "threshold"}, std::vector(4, report::column_alignment::left));
    const char* templates[3] = {"key i - 1", "the earlier copy of the query's token (i - |r|)", "the token after that copy (i - |r| + 1)"};
    for (std::size_t k = 0; k < 3; ++k)
        thresholds.add_row({behaviour_names[k], templates[k], report::format("%.4f", r.attainable[k]), report::format("%.4f", r.threshold(k))});
    s << thresholds.markdown() << "\n";
    std::size_t showing = 0;
    for (const auto& h : r.per_head) showing += h.behaviours.empty() ? 0 : 1;
    s << showing << " of " << r.per_head.size() << " heads show at least one behaviour.\n\n";
    for (const auto& f : figures) s << "![" << f.caption << "](" << (figure_dir.empty() ? f.file : figure_dir + "/" + f.file) << ")\n\n";
    s << "## Every head\n\n" << heads_table(r).markdown() << "\n";
    if (c) {
        s << "## Weights against behaviour\n\nWeight labels from `" << scan_file
          << "` (hypotheses from `qkov scan`, docs/SCAN-LABELS.md) beside the behaviours measured here; heads with neither are left out. "
          << counts_line(*c) << ". Disagreements are findings about the model or the labels, not failures.\n\n"
          << side_by_side_table(scanned, r, *c).markdown() << "\n";
    }
    return s.str();
}

template <class T>
int run_detection(const model::attention_model& model, const detect_cli_options& o)
{
    const auto start = std::chrono::steady_clock::now();
    const forward::decoder<T> pass(model);
    detect::detection_options options;
    options.length = o.length, options.samples = o.samples, options.seed = o.seed, options.bos = o.bos;
    const auto& c = model.config();
    if (pass.weights().positions.size() != 0 && 2 * o.length + 1 > pass.weights().positions.shape()[0])
        throw std::invalid_argument("qkov: --length " + std::to_string(o.length) + " makes sequences of " + std::to_string(2 * o.length + 1) +
                                    " tokens, but the model has learned positions for " + std::to_string(pass.weights().positions.shape()[0]));
    options.on_sample = [&](std::size_t done, std::size_t total) {
        const std::chrono::duration<double> t = std::chrono::steady_clock::now() - start;
        std::cerr << "qkov detect: sample " << done << " of " << total << " (" << report::format("%.1f", t.count()) << " s)\n";
    };
    std::cerr << "qkov detect: " << o.path << ": " << c.layers << " layers x " << c.heads << " heads, " << o.samples << " samples of " << 2 * o.length + 1
              << " tokens, " << o.dtype << "\n";
    const auto r = detect::detect_heads(pass, options);

    std::vector<detect::weight_labels> scanned;
    std::optional<detect::comparison> comparison;
    if (!o.scan.empty()) {
        scanned = read_scan_labels(o.scan, c.layers, c.heads);
        comparison = detect::compare_weights_with_behaviour(scanned, r);
    }

    std::cout << heads_table(r).aligned();
    for (std::size_t k = 0; k < 3; ++k) {
        std::vector<std::string> heads;
        for (const auto& h : r.per_head)
            if (h.shows(behaviour_names[k])) heads.push_back(head_name(h.layer, h.head));
        std::cout << behaviour_names[k] << " (mean >= " << report::format("%.3f", r.threshold(k)) << "): " << joined(heads, "no head") << "\n";
    }
    if (comparison) std::cout << "weights against behaviour (" << o.scan << "):\n" << side_by_side_table(scanned, r, *comparison).aligned() << counts_line(*comparison) << "\n";

    const nlohmann::json summary = model_summary(model);
    std::vector<detect::detection_figure> figures;
    if (!o.figures.empty()) {
        figures = detect::write_detection_figures(r, detect::example_patterns(pass, r), o.figures);
        std::cout << figures.size() << " figures in " << o.figures << "\n";
    }
    if (!o.markdown.empty())
        report::write_report_file(o.markdown, markdown_report(o.path, summary, r, figures, o.figures.empty() ? "" : figures_relative_to(o.figures, o.markdown),
                                                              o.scan, scanned, comparison));
    if (!o.json.empty()) {
        nlohmann::json j;
        j["model"] = summary;
        j["model"]["path"] = o.path;
        j["detection"] = detection_json(r);
        j["detection"]["dtype"] = o.dtype;
        nlohmann::json heads = nlohmann::json::array();
        for (const auto& h : r.per_head)
            heads.push_back({{"layer", h.layer},
                             {"head", h.head},
                             {"previous_token", h.previous_token.mean},
                             {"duplicate_token", h.duplicate_token.mean},
                             {"induction", h.induction.mean},
                             {"spread", {{"previous_token", h.previous_token.spread}, {"duplicate_token", h.duplicate_token.spread}, {"induction", h.induction.spread}}},
                             {"shows", h.behaviours}});
        j["heads"] = std::move(heads);
        j["comparison"] = comparison ? comparison_json(o.scan, *comparison) : nlohmann::json(nullptr);
        report::write_report_file(o.json, j.dump(1) + "\n");
    }
    return 0;
}

/// The scan JSON's value at `key` as an unsigned integer; anything else is an error naming it.
std::size_t index_field(const nlohmann::json& j, const char* key, const std::string& file, const std::string& where)
{
    const auto it = j.find(key);
    if (it == j.end() || !it->is_number_integer() || it->get<std::int64_t>() < 0)
        throw std::runtime_error("qkov: " + file + ": " + where + " lacks a non-negative integer \"" + key + "\" (is it the JSON of qkov scan --json?)");
    return it->get<std::size_t>();
}

} // namespace

std::vector<detect::weight_labels> read_scan_labels(const std::string& file, std::size_t layers, std::size_t heads)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) throw std::runtime_error("qkov: --scan " + file + ": not a regular file");
    constexpr std::uintmax_t limit = std::uintmax_t{1} << 30;
    if (fs::file_size(file, ec) > limit) throw std::runtime_error("qkov: --scan " + file + ": larger than 1 GiB, not a scan's JSON");
    std::ifstream in(file, std::ios::binary);
    nlohmann::json j;
    try {
        j = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
        throw std::runtime_error("qkov: --scan " + file + ": not valid JSON (" + e.what() + ")");
    }
    if (!j.is_object() || !j.contains("model") || !j["model"].is_object() || !j.contains("heads") || !j["heads"].is_array())
        throw std::runtime_error("qkov: --scan " + file + ": expected an object with \"model\" and \"heads\", as qkov scan --json writes");
    const std::size_t scan_layers = index_field(j["model"], "layers", file, "\"model\""), scan_heads = index_field(j["model"], "heads", file, "\"model\"");
    if (scan_layers != layers || scan_heads != heads)
        throw std::runtime_error("qkov: --scan " + file + ": the scan is of a model with " + std::to_string(scan_layers) + " layers x " +
                                 std::to_string(scan_heads) + " heads, this model has " + std::to_string(layers) + " x " + std::to_string(heads));
    std::vector<detect::weight_labels> out;
    for (std::size_t i = 0; i < j["heads"].size(); ++i) {
        const auto& h = j["heads"][i];
        const std::string where = "heads[" + std::to_string(i) + "]";
        if (!h.is_object()) throw std::runtime_error("qkov: --scan " + file + ": " + where + " is not an object");
        detect::weight_labels w{index_field(h, "layer", file, where), index_field(h, "head", file, where), {}};
        if (w.layer >= layers || w.head >= heads)
            throw std::runtime_error("qkov: --scan " + file + ": " + where + " names head " + head_name(w.layer, w.head) + ", outside the model");
        const auto labels = h.find("labels");
        if (labels == h.end() || !labels->is_array()) throw std::runtime_error("qkov: --scan " + file + ": " + where + " lacks a \"labels\" array");
        for (const auto& l : *labels) {
            if (!l.is_string()) throw std::runtime_error("qkov: --scan " + file + ": " + where + " has a label that is not a string");
            w.labels.push_back(l.get<std::string>());
        }
        out.push_back(std::move(w));
    }
    return out;
}

int detect(const detect_cli_options& o)
{
    apply_threads_option(o.threads);
    if (o.path.empty()) throw std::invalid_argument("qkov: detect needs a model PATH");
    check_run_paths({o.json, o.markdown, o.figures, "", o.scan});  // json, markdown, figures, new model, scan
    const auto model = model::open_model(o.path);
    return o.dtype == "float64" ? run_detection<double>(model, o) : run_detection<float>(model, o);
}

subcommand add_detect(CLI::App& app)
{
    auto o = std::make_shared<detect_cli_options>();
    auto* command = app.add_subcommand("detect", "Every head's previous-token, duplicate-token and induction scores from the model's forward pass "
                                                 "(directory, .safetensors, .gguf, llama2.c .bin)");
    command->add_option("PATH", o->path, "A model directory, a .safetensors, .gguf or llama2.c .bin file")->required();
    command->add_option("--json", o->json, "Write every score as JSON to this file");
    command->add_option("--markdown", o->markdown, "Write a Markdown report (settings, thresholds, figures, every head, the comparison)");
    command->add_option("--figures", o->figures, "Write PNG figures into this directory (created if absent)");
    command->add_option("--length", o->length, "|r|, the number of distinct random tokens repeated once (default 50)")->check(integer_in(1, 1 << 20));
    command->add_option("--samples", o->samples, "How many random sequences to average over (default 10)")->check(integer_in(1, 100000));
    command->add_option("--seed", o->seed, "The random generator's seed (default 0)")->check(integer_in(0, std::numeric_limits<std::int64_t>::max()));
    command->add_option("--bos", o->bos, "The token every sequence starts with (default: the model's bos_token_id)")
        ->check(integer_in(0, std::numeric_limits<std::uint32_t>::max()));
    command->add_option("--dtype", o->dtype, "The forward pass's arithmetic (default float32)")->check(CLI::IsMember({"float32", "float64"}));
    command->add_option("--scan", o->scan, "The JSON of qkov scan --json for the same model: compare its weight labels with the behaviour measured here");
    add_threads_option(command, o->threads);
    return {command, [o] { return detect(*o); }};
}

} // namespace qkov::app
