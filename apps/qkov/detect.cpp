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

#include "qkov/detect/detection_json.hpp"
#include "qkov/detect/input_pairing.hpp"
#include "qkov/detect/scan_labels.hpp"
#include "qkov/detect/text_detection.hpp"
#include "qkov/forward/forward_pass.hpp"
#include "qkov/io/atomic_file.hpp"
#include "qkov/io/memory_headroom.hpp"
#include "qkov/io/token_id_text.hpp"
#include "qkov/model/head_name.hpp"
#include "qkov/model/model_fingerprint.hpp"
#include "qkov/report/joined_text.hpp"
#include "qkov/report/number_text.hpp"
#include "qkov/report/report_file.hpp"
#include "qkov/report/table.hpp"
#include "detection_runs.hpp"
#include "model_runs.hpp"
#include "model_summary.hpp"
#include "number_options.hpp"
#include "out_of_memory.hpp"
#include "report_paths.hpp"
#include "threads_option.hpp"

namespace qkov::app {

namespace {

using detect::behaviour_names;

using model::head_name;

/// `items` listed in one line, `none` when there are none.
std::string joined(const std::vector<std::string>& items, const char* none = "-") { return items.empty() ? none : report::joined(items); }

std::string score_cell(const detect::score_statistics& s) { return report::format("%.3f ± %.3f", s.mean, s.spread); }

/// The head's strongest offset, as "k: mean".
std::string strongest_offset(const detect::head_behaviour& h)
{
    std::size_t best = 0;
    for (std::size_t k = 1; k < h.by_offset.size(); ++k)
        if (h.by_offset[k].mean > h.by_offset[best].mean) best = k;
    return std::to_string(best) + ": " + report::format("%.3f", h.by_offset[best].mean);
}

/// The behaviours a head shows, then those it is undecided on, each marked "?".
std::string shows_cell(const detect::head_behaviour& h)
{
    std::vector<std::string> items = h.behaviours;
    for (const auto& u : h.undecided) items.push_back(u + "?");
    return joined(items);
}

std::string copying_cell(const detect::head_behaviour& h)
{
    if (!h.copying) return "-";
    return report::format("%.2f / %.2f", h.copying->top1_share(), h.copying->bottom_share()) + " of " + std::to_string(h.copying->queries);
}

report::table heads_table(const detect::detection_result& r)
{
    using report::column_alignment;
    report::table t({"head", "previous_token", "duplicate_token", "induction", "shift -1", "shift 2", "BOS", "top offset", "copy / suppress", "shows"},
                    {column_alignment::left, column_alignment::right, column_alignment::right, column_alignment::right, column_alignment::right,
                     column_alignment::right, column_alignment::right, column_alignment::right, column_alignment::right, column_alignment::left});
    for (const auto& h : r.per_head)
        t.add_row({head_name(h.layer, h.head), score_cell(h.previous_token), score_cell(h.duplicate_token), score_cell(h.induction),
                   report::format("%.3f", h.shift(-1).mean), report::format("%.3f", h.shift(2).mean), report::format("%.3f", h.bos.mean),
                   strongest_offset(h), copying_cell(h), shows_cell(h)});
    return t;
}

/// The random tokens' and the text's value of a score, "random / text".
std::string beside_cell(double random, double text) { return report::format("%.3f / %.3f", random, text); }

std::string copy_share(const detect::head_behaviour& h) { return h.copying && h.copying->queries > 0 ? report::format("%.2f", h.copying->top1_share()) : "-"; }

/// Every head on random tokens beside the same head on text: the scores the two share, each cell
/// "on random tokens / on text", and the behaviours each shows.
report::table beside_table(const detect::detection_result& random, const detect::detection_result& text)
{
    using report::column_alignment;
    report::table t({"head", "previous_token", "duplicate_token", "induction", "BOS", "top offset", "copy share", "shows on random tokens", "shows on text"},
                    {column_alignment::left, column_alignment::right, column_alignment::right, column_alignment::right, column_alignment::right,
                     column_alignment::right, column_alignment::right, column_alignment::left, column_alignment::left});
    for (const auto& h : text.per_head) {
        const auto* r = random.find(h.layer, h.head);
        if (r == nullptr) continue;
        t.add_row({head_name(h.layer, h.head), beside_cell(r->previous_token.mean, h.previous_token.mean), beside_cell(r->duplicate_token.mean, h.duplicate_token.mean),
                   beside_cell(r->induction.mean, h.induction.mean), beside_cell(r->bos.mean, h.bos.mean), strongest_offset(*r) + " / " + strongest_offset(h),
                   copy_share(*r) + " / " + copy_share(h), shows_cell(*r), shows_cell(h)});
    }
    return t;
}

/// The line above the beside table: what each cell holds.
std::string beside_heading(const detect::detection_result& random, const detect::detection_result& text)
{
    return "every head on random tokens / on " + text.input + " (means over " + std::to_string(random.samples) + " and " + std::to_string(text.samples) +
           " sequences; " + text.input + ": " + std::to_string(text.sequences.empty() ? 0 : text.sequences.front().size()) + " tokens in the first):";
}

report::table rules_table(const detect::detection_result& r)
{
    report::table t({"behaviour", "measure", "threshold", "why"}, std::vector(4, report::column_alignment::left));
    for (const auto& rule : r.rules) t.add_row({rule.name, rule.measure, report::format("%.4f", rule.threshold), rule.reason});
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
            if (v.layer == w.layer && v.head == w.head)
                verdicts.push_back(v.label + (v.certified ? " (certified)" : "") + ": " + detect::verdict_name(v.outcome));
        if (w.labels.empty() && h->behaviours.empty() && h->undecided.empty()) continue;  // nothing on either side
        t.add_row({head_name(w.layer, w.head), joined(w.labels), shows_cell(*h), joined(verdicts)});
    }
    return t;
}

/// The confusion counts per label that has any, and their total (the JSON keeps every label's).
report::table counts_table(const detect::comparison& c)
{
    report::table t({"weight label", "confirmed", "contradicted", "certified contradicted", "missed", "undecided", "not tested"},
                    {report::column_alignment::left, report::column_alignment::right, report::column_alignment::right, report::column_alignment::right,
                     report::column_alignment::right, report::column_alignment::right, report::column_alignment::right});
    const auto row = [&t](const detect::label_counts& x) {
        t.add_row({x.label, std::to_string(x.confirmed), std::to_string(x.contradicted), std::to_string(x.certified_contradicted), std::to_string(x.missed),
                   std::to_string(x.undecided), std::to_string(x.not_tested)});
    };
    for (const auto& x : c.per_label)
        if (x.confirmed + x.contradicted + x.missed + x.not_tested + x.undecided > 0) row(x);
    row(c.total());
    return t;
}

/// Every certified label that behaviour contradicts, as "0.3 previous_token"; empty when none.
std::vector<std::string> certified_contradictions(const detect::comparison& c)
{
    std::vector<std::string> out;
    for (const auto& v : c.verdicts)
        if (v.certified && v.outcome == detect::verdict::contradicted) out.push_back(head_name(v.layer, v.head) + " " + v.label);
    return out;
}

std::string counts_line(const detect::comparison& c)
{
    const auto t = c.total();
    return std::to_string(c.heads_compared) + " heads compared: " + std::to_string(t.confirmed) + " weight labels confirmed, " +
           std::to_string(t.contradicted) + " contradicted (" + std::to_string(t.certified_contradicted) + " of them certified), " +
           std::to_string(t.undecided) + " undecided (the behaviour's 95 % interval holds its threshold), " + std::to_string(t.not_tested) +
           " not tested; " + std::to_string(t.missed) + " behaviours whose label the head lacks (missed)";
}

/// Which heads show each behaviour, one line per rule.
std::string shown_lines(const detect::detection_result& r)
{
    std::string out;
    for (const auto& rule : r.rules) {
        std::vector<std::string> heads;
        for (const auto& h : r.per_head)
            if (h.shows(rule.name)) heads.push_back(head_name(h.layer, h.head));
        out += rule.name + " (>= " + report::format("%.3f", rule.threshold) + "): " + joined(heads, "no head") + "\n";
    }
    return out;
}

std::string markdown_report(const std::string& path, const nlohmann::json& summary, const detect::detection_result& r,
                            const std::optional<detect::detection_result>& text, const std::vector<detect::detection_figure>& figures,
                            const std::string& figure_dir, const std::string& scan_file, const std::vector<detect::weight_labels>& scanned,
                            const std::optional<detect::comparison>& c, const detect::detection_result& judged)
{
    std::ostringstream s;
    s << "# Head detection: " << path << "\n\n";
    s << "Model: " << summary.value("architecture", std::string()) << ", " << r.layers << " layers x " << r.heads << " heads, vocabulary " << r.vocabulary
      << ".\n\n";
    s << "Each head's attention pattern on " << r.samples << " sequences [BOS] + r + r (|r| = " << r.length << " distinct random tokens, seed " << r.seed
      << ", BOS " << r.bos << "), as mean ± sample standard deviation over the sequences. A head *shows* a behaviour when the 95 % interval "
      << "of its mean (Student's t over the sequences) lies at or above the threshold, and is undecided on it (marked ?) when the interval holds "
      << "the threshold (docs/DETECT.md):\n\n"
      << rules_table(r).markdown() << "\n";
    std::size_t showing = 0;
    for (const auto& h : r.per_head) showing += h.behaviours.empty() ? 0 : 1;
    s << showing << " of " << r.per_head.size() << " heads show at least one behaviour.\n\n";
    const auto link = [&](const detect::detection_figure& f) { return "![" + f.caption + "](" + (figure_dir.empty() ? f.file : figure_dir + "/" + f.file) + ")\n\n"; };
    for (const auto& f : figures)
        if (!text || !f.file.starts_with("text_")) s << link(f);
    s << "## Every head\n\n" << heads_table(r).markdown() << "\n";
    if (text) {
        s << "## On " << text->input << "\n\nThe same heads on " << text->samples << " sequences of " << text->input
          << " (every sequence's token ids are in the JSON). The repeat templates' attainable scores are the text's: the share of queries "
          << "whose token occurred earlier (docs/DETECT.md). " << beside_heading(r, *text) << "\n\n"
          << rules_table(*text).markdown() << "\n" << beside_table(r, *text).markdown() << "\n";
        for (const auto& f : figures)
            if (f.file.starts_with("text_")) s << link(f);
    }
    if (c) {
        s << "## Weights against behaviour\n\nWeight labels from `" << scan_file
          << "` (hypotheses from `qkov scan`, docs/SCAN-LABELS.md) beside the behaviours measured here on " << judged.input
          << ", the input the scan's labels predict. " << counts_line(*c) << ". Disagreements are findings about the model or the labels, not failures.\n\n";
        if (const auto bad = certified_contradictions(*c); !bad.empty())
            s << "**Certified labels that behaviour contradicts: " << report::joined(bad) << ".**\n\n";
        s << counts_table(*c).markdown() << "\n" << side_by_side_table(scanned, judged, *c).markdown() << "\n";
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
    const std::size_t positions = pass.weights().positions.size() == 0 ? 0 : pass.weights().positions.shape()[0];
    if (positions != 0 && 2 * o.length + 1 > positions)
        throw std::invalid_argument("qkov: --length " + std::to_string(o.length) + " makes sequences of " + std::to_string(2 * o.length + 1) +
                                    " tokens, but the model has learned positions for " + std::to_string(positions));
    // The text, read or checked before any forward pass, as the scan is.
    detect::text_request text;
    namespace inputs = scan::scan_json_keys;
    if (o.text == "self") {
        text.input = inputs::input_own_text;
        text.length = o.text_length.value_or(text.length);
        forward::check_own_text_length(pass, text.length, "--text-length");
    } else if (!o.text.empty()) {
        if (o.text_length) throw std::invalid_argument("qkov: --text-length sets the length of the model's own text: it needs --text self, not a file");
        text.input = inputs::input_file + o.text;
        const auto ids = io::read_token_id_text(o.text, {.vocabulary = c.vocab_size, .context = io::calibration_context(c.max_positions, true),
                                                         .bos = static_cast<std::size_t>(detect::detection_bos(options, c))});
        text.sequences = detect::text_sequences(ids, detect::detection_bos(options, c), text.input);
    } else if (o.text_length) {
        throw std::invalid_argument("qkov: --text-length sets the length of the model's own text: it needs --text self");
    }
    // The scan is read and checked against the model, and its input against the detection's,
    // before the forward passes, so a wrong file costs nothing.
    std::optional<detect::scan_labels> scan;
    detect::input_pairing pairing;
    if (!o.scan.empty()) {
        scan = detect::read_scan_labels(o.scan);
        detect::require_scan_of(*scan, detect::geometry_of(c), model::fingerprint_of(model));
        pairing = detect::pair_scan_with_detection(scan->input, text.input, "--scan " + o.scan);
        if (!pairing.warning.empty()) std::cerr << "qkov detect: warning: " << pairing.warning << "\n";
    }
    std::string running = "random tokens";
    options.on_sample = [&](std::size_t done, std::size_t total) {
        const std::chrono::duration<double> t = std::chrono::steady_clock::now() - start;
        std::cerr << "qkov detect: " << running << ": sample " << done << " of " << total << " (" << report::format("%.1f", t.count()) << " s)\n";
    };
    std::cerr << "qkov detect: " << o.path << ": " << c.layers << " layers x " << c.heads << " heads, " << o.samples << " samples of " << 2 * o.length + 1
              << " tokens, " << o.dtype << "\n";
    const auto r = runs::detect_heads(pass, options);
    if (!r.copying_not_measured.empty()) std::cerr << "qkov detect: copying not measured: " << r.copying_not_measured << "\n";
    std::optional<detect::detection_result> on_text;
    if (!text.input.empty()) {
        running = text.input;
        if (text.input == inputs::input_own_text)
            std::cerr << "qkov detect: the model writing " << o.samples << " sequences of " << text.length << " tokens from BOS (temperature 1, seed " << o.seed
                      << ")\n";
        on_text = runs::detect_text(pass, text, options);
    }
    const detect::detection_result& judged = pairing.on == detect::judged_on::text ? *on_text : r;

    const std::vector<detect::weight_labels> scanned = scan ? scan->heads : std::vector<detect::weight_labels>{};
    std::optional<detect::comparison> comparison;
    if (scan) comparison = detect::compare_weights_with_behaviour(scanned, judged);

    std::cout << heads_table(r).aligned() << shown_lines(r);
    if (on_text) std::cout << beside_heading(r, *on_text) << "\n" << beside_table(r, *on_text).aligned() << "on " << on_text->input << ":\n" << shown_lines(*on_text);
    if (comparison) {
        std::cout << "weights against behaviour on " << judged.input << " (" << o.scan << "):\n"
                  << side_by_side_table(scanned, judged, *comparison).aligned() << counts_table(*comparison).aligned() << counts_line(*comparison) << "\n";
        if (const auto bad = certified_contradictions(*comparison); !bad.empty()) {
            const std::string loud = "qkov detect: CERTIFIED LABELS CONTRADICTED BY BEHAVIOUR: " + report::joined(bad) + "\n";
            std::cout << loud;
            std::cerr << loud;
        }
    }

    const nlohmann::json summary = model_summary(model);
    std::vector<detect::detection_figure> figures;
    if (!o.figures.empty()) {
        std::vector<std::string> unpredicted;
        figures = runs::write_every_detection_figure(pass, r, on_text ? &*on_text : nullptr, scan ? &scanned : nullptr, judged, o.figures, unpredicted);
        if (!unpredicted.empty())
            std::cerr << "qkov detect: no prediction figure for " << report::joined(unpredicted) << ": no head of " << o.scan << " predicts it\n";
        std::cout << figures.size() << " figures in " << o.figures << "\n";
    }
    // The Markdown report and the JSON document are written together: both or neither (a full disk
    // fails before either is replaced).
    std::string markdown, json;
    if (!o.markdown.empty())
        markdown = markdown_report(o.path, summary, r, on_text, figures, o.figures.empty() ? "" : figures_relative_to(o.figures, o.markdown), o.scan, scanned,
                                   comparison, judged);
    if (!o.json.empty()) {
        detect::detection_document d{summary, o.dtype, r, comparison, o.scan, on_text, judged.input};
        d.model["path"] = o.path;
        json = detect::detection_text(d);
    }
    std::vector<std::pair<std::filesystem::path, std::string_view>> outputs;
    for (const auto& [path, text] : {std::pair{&o.markdown, &markdown}, std::pair{&o.json, &json}})
        if (!path->empty()) {
            const std::filesystem::path file(*path);
            if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path());
            outputs.emplace_back(file, *text);
        }
    io::write_files_together(outputs);
    return 0;
}

} // namespace

int detect(const detect_cli_options& o)
{
    apply_threads_option(o.threads);
    if (o.path.empty()) throw std::invalid_argument("qkov: detect needs a model PATH");
    check_run_paths({o.json, o.markdown, o.figures, "", o.scan});  // json, markdown, figures, new model, scan
    const auto model = runs::open_model(o.path);
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
    command->add_option("--samples", o->samples, "How many random sequences to average over (default 10)")->check(integer_in(1, detect::largest_samples));
    command->add_option("--seed", o->seed, "The random generator's seed (default 0)")->check(integer_in(0, std::numeric_limits<std::int64_t>::max()));
    command->add_option("--bos", o->bos, "The token every sequence starts with (default: the model's bos_token_id)")
        ->check(integer_in(0, std::numeric_limits<std::uint32_t>::max()));
    command->add_option("--dtype", o->dtype, "The forward pass's arithmetic (default float32)")->check(CLI::IsMember({"float32", "float64"}));
    command->add_option("--scan", o->scan,
                        "The JSON of qkov scan --json for the same model: compare its weight labels with the behaviour measured here, on the input "
                        "the scan predicts (random tokens, or with --text the text: a scan made with --calibrate self against --text self)");
    command->add_option("--text", o->text,
                        "Also measure every head on text, beside the random tokens: 'self' (the model's own text: --samples sequences it writes from "
                        "BOS at temperature 1, seeded with --seed) or a file of token ids, one sequence per line (as qkov scan --calibrate reads)");
    command->add_option("--text-length", o->text_length, "Tokens the model writes after BOS per sequence with --text self (default 100)")
        ->check(integer_in(static_cast<std::int64_t>(forward::shortest_own_text), static_cast<std::int64_t>(forward::longest_own_text)));
    add_threads_option(command, o->threads);
    // With --scan, the scan's document may be what did not fit: its size is said beside the model's advice.
    const auto advice = [o] {
        std::error_code ec;
        const auto bytes = o->scan.empty() ? 0 : std::filesystem::file_size(o->scan, ec);
        if (o->scan.empty() || ec) return model_out_of_memory_advice();
        return "--scan " + o->scan + " is " + io::megabytes(bytes) + " (detect keeps of it only each head's labels and predictions, a few MB " +
               "for a scan qkov wrote, however large; heads holding more than that are not a scan's); or " + model_out_of_memory_advice();
    };
    return {command, [o] { return detect(*o); }, advice};
}

} // namespace qkov::app
