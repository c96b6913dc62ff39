#include "scan.hpp"

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <limits>
#include <map>
#include <set>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "qkov/io/atomic_file.hpp"
#include "qkov/io/token_id_text.hpp"
#include "qkov/model/head_name.hpp"
#include "qkov/model/layer_memory.hpp"
#include "qkov/numeric/parallel_blocks.hpp"
#include "qkov/report/report_file.hpp"
#include "qkov/scan/scan_figures.hpp"
#include "qkov/scan/scan_markdown.hpp"
#include "qkov/scan/scan_options.hpp"
#include "qkov/scan/scan_facts.hpp"
#include "qkov/scan/scan_json.hpp"
#include "qkov/scan/own_text_calibration.hpp"
#include "qkov/scan/proxy_dump.hpp"
#include "qkov/scan/scan_progress.hpp"
#include "qkov/scan/seed_head_model.hpp"
#include "model_runs.hpp"
#include "model_summary.hpp"
#include "number_options.hpp"
#include "report_paths.hpp"
#include "threads_option.hpp"

namespace qkov::app {

namespace {

/// "A-B" or "A" (inclusive, 0-based) into the scan's layer range; anything else is a named error.
void parse_layers(const std::string& text, scan::scan_options& o, const std::string& option = "--layers")
{
    const auto bad = [&] { return std::invalid_argument("qkov: " + option + " '" + text + "': expected A-B or A (0-based layer numbers, A <= B)"); };
    const auto number = [&](const std::string& s) {
        if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 9) throw bad();
        return static_cast<std::size_t>(std::stoul(s));
    };
    const auto dash = text.find('-');
    o.first_layer = number(text.substr(0, dash));
    o.last_layer = dash == std::string::npos ? o.first_layer : number(text.substr(dash + 1));
    if (*o.last_layer < o.first_layer) throw bad();
}

/// "0-10,11-15,16" (the shards' ranges, as --layers takes each): each shard's first and last layer.
std::vector<std::pair<std::size_t, std::size_t>> shard_ranges(const std::string& text)
{
    std::vector<std::pair<std::size_t, std::size_t>> ranges;
    std::size_t from = 0;
    while (from <= text.size()) {
        const auto comma = std::min(text.find(',', from), text.size());
        scan::scan_options range;
        parse_layers(text.substr(from, comma - from), range, "--prepare-shards (a range of '" + text + "')");
        ranges.emplace_back(range.first_layer, *range.last_layer);
        from = comma + 1;
    }
    return ranges;
}

/// "45 s", "12 min 5 s", "3 h 20 min": a wait a person reads at a glance.
std::string duration_text(double seconds)
{
    const auto s = static_cast<long long>(std::llround(std::max(0.0, seconds)));
    if (s < 60) return std::to_string(s) + " s";
    if (s < 3600) return std::to_string(s / 60) + " min " + std::to_string(s % 60) + " s";
    return std::to_string(s / 3600) + " h " + std::to_string(s % 3600 / 60) + " min";
}

} // namespace

int scan(const scan_cli_options& o)
{
    apply_threads_option(o.threads);
    check_run_paths({o.json, o.markdown, o.figures, o.seed_head_model, ""});  // json, markdown, figures, new model, scan
    detail::check_output_file("--timings", o.timings);
    detail::check_output_file("--dump-proxy", o.dump_proxy);
    scan::scan_options options;
    if (o.layers) parse_layers(*o.layers, options);  // checked before any work; --layers '' is an error, not every layer
    if (o.prepare_shards && o.shared.empty()) throw std::invalid_argument("qkov: --prepare-shards writes into the directory --shared DIR names: give it");
    const auto ranges = o.prepare_shards ? shard_ranges(*o.prepare_shards) : std::vector<std::pair<std::size_t, std::size_t>>{};
    model::reuse_freed_layer_memory();
    if (!o.seed_head_model.empty()) {
        scan::write_seed_head_model(o.seed_head_model);
        std::cerr << "qkov scan: wrote the seed-head model (seed 001's previous-token head, seed 000's semantic head) to " << o.seed_head_model << "\n";
    }
    const std::string path = o.seed_head_model.empty() ? o.path : o.seed_head_model;
    if (path.empty()) throw std::invalid_argument("qkov: scan needs a model PATH (or --seed-head-model DIR)");
    const auto model = runs::open_model(path);
    const auto& c = model.config();
    options.thresholds.context = o.context;
    options.precision = *scan::precision_named(o.precision);  // the option's check admits the two names
    options.keep_proxy_inputs = !o.dump_proxy.empty();
    if (o.calibrate != "self" && (o.calibrate_samples || o.calibrate_length || o.calibrate_seed))
        throw std::invalid_argument("qkov: --calibrate-samples, --calibrate-length and --calibrate-seed set the model's own text: they need --calibrate self");
    if (o.calibrate == "self") {
        scan::own_text_calibration self;
        self.sequences = o.calibrate_samples.value_or(self.sequences), self.length = o.calibrate_length.value_or(self.length);
        self.seed = o.calibrate_seed.value_or(self.seed);
        if (!o.quiet)
            std::cerr << "qkov scan: the model writing " << self.sequences << " sequences of " << self.length << " tokens from BOS (temperature 1, seed "
                      << self.seed << ") to calibrate on\n";
        scan::calibrate_on_own_text(model, self, options, "--calibrate-length");
    } else if (o.calibrate != "random") {
        // A sequence and the BOS it is given must fit in the context the model declares.
        const std::size_t context = io::calibration_context(c.max_positions, c.bos_token_id.has_value());
        options.calibration = io::read_token_id_text(o.calibrate, {.vocabulary = c.vocab_size, .context = context, .bos = c.bos_token_id});
        options.calibration_name = o.calibrate;
    }
    if (o.context == 0 && c.rope && c.max_positions > scan::largest_default_context)
        std::cerr << "qkov scan: note: the model's context of " << c.max_positions << " positions is scanned up to " << scan::largest_default_context
                  << " (--context's limit)\n";
    if (o.prepare_shards) {
        std::vector<std::size_t> starts;
        for (const auto& [first, last] : ranges) {
            if (last >= c.layers)
                throw std::invalid_argument("qkov: --prepare-shards: the range " + std::to_string(first) + "-" + std::to_string(last) + " is not within 0-" +
                                            std::to_string(c.layers - 1));
            starts.push_back(first);
        }
        const auto begun = std::chrono::steady_clock::now();
        runs::prepare_shard_inputs(model, starts, o.shared, options, [&](std::size_t l) {
            if (!o.quiet)
                std::cerr << "qkov scan: the shards' pass through layer " << l << " of " << c.layers << " ("
                          << duration_text(std::chrono::duration<double>(std::chrono::steady_clock::now() - begun).count()) << ")\n";
        });
        std::cout << "the inputs shared by shards starting at layers " << *o.prepare_shards << " in " << o.shared << " (read with --shared "
                  << o.shared << ")\n";
        return 0;
    }
    options.shared_inputs = o.shared;
    const auto start = std::chrono::steady_clock::now();
    // A person waiting at a terminal also gets the time left; a log (not a terminal) keeps the
    // lines it always had, so scripts that read them see no change.
    const bool terminal = ::isatty(STDERR_FILENO) == 1;
    scan::scan_time_estimate estimate(options.first_layer, options.last_layer.value_or(c.layers == 0 ? 0 : c.layers - 1));
    nlohmann::json layer_timings = nlohmann::json::array();
    options.on_layer = [&](std::size_t l, const std::vector<scan::head_metrics>& heads, const scan::layer_timing& timing) {
        layer_timings.push_back({{"layer", l},
                                 {"pass_seconds", timing.pass_seconds},
                                 {"copying_seconds", timing.copying_seconds},
                                 {"heads_seconds", timing.heads_seconds},
                                 {"composition_seconds", timing.composition_seconds},
                                 {"t3_worker_seconds", timing.t3_seconds},
                                 {"circuit_seconds", timing.circuit_seconds}});
        if (o.quiet) return;
        double worst = 0, top_cond = 0;
        for (const auto& h : heads) {
            worst = std::max({worst, h.qk.residual, h.ov.residual});
            top_cond = std::max({top_cond, h.q.condition.value_or(0.0), h.k.condition.value_or(0.0)});
        }
        const std::chrono::duration<double> t = std::chrono::steady_clock::now() - start;
        estimate.record(timing);
        std::string left;
        if (terminal) {
            const auto seconds = estimate.seconds_left();
            left = seconds ? ", about " + duration_text(*seconds) + " left" : ", time left known after the next layer";
        }
        std::cerr << "qkov scan: layer " << l << " of " << c.layers << ": " << heads.size() << " heads, max cond " << std::setprecision(4) << top_cond
                  << ", max residual " << worst << " (" << std::fixed << std::setprecision(1) << t.count() << " s" << left << ")" << std::defaultfloat << "\n";
    };
    if (!o.quiet)
        std::cerr << "qkov scan: " << path << ": " << c.layers << " layers x " << c.heads << " heads, D = " << c.hidden_size << ", d = " << c.head_dim
              << (model.embedding_status() == "present" && model.unembedding_status() != "absent" ? ", copying scores from W_E^T W_U"
                                                                                                 : ", no copying score (embedding " + model.embedding_status() +
                                                                                                       ", unembedding " + model.unembedding_status() + ")")
              << "; " << numeric::worker_count() << " threads, BLAS on each\n";
    const auto scan_start = std::chrono::steady_clock::now();
    const auto r = runs::scan_model(model, options);
    if (!o.timings.empty()) {
        // Before the first layer: the token side (W_E^T W_U, the embedding sample) and the read-out's
        // token rows; heads_seconds holds the pass, the copying and the heads' own work.
        double layers = 0;
        for (const auto& t : layer_timings) layers += t["heads_seconds"].get<double>() + t["composition_seconds"].get<double>();
        const double total = std::chrono::duration<double>(std::chrono::steady_clock::now() - scan_start).count();
        const nlohmann::json timings = {{"threads", numeric::worker_count()}, {"scan_seconds", total}, {"before_layers_seconds", total - layers},
                                        {"layers", layer_timings}};
        report::write_report_file(o.timings, timings.dump(1) + "\n");
    }

    std::size_t rank_deficient = 0, fallbacks = 0;
    double worst = 0;
    for (const auto& h : r.heads) {
        rank_deficient += (h.q.rank < c.head_dim || h.k.rank < c.head_dim) ? 1 : 0;
        fallbacks += (h.qk.driver != "gesdd" || h.ov.driver != "gesdd") ? 1 : 0;
        worst = std::max({worst, h.qk.residual, h.ov.residual});
    }
    std::cout << r.heads.size() << " heads scanned, " << r.composition.size() << " composition pairs; " << rank_deficient
              << " heads with rank-deficient W_q or W_k; max reconstruction residual " << worst << "; " << fallbacks << " heads needed the gesvd fallback\n";

    // The facts the scan states about the claims (kind S): all models, and the seed heads' own.
    // The seed-head model's facts read both of its layers at once: a shard (--layers) covering part
    // of them states none of them (as merge-scans refuses them in a shard), never "FAILS".
    auto facts = scan::model_facts(r);
    const bool whole_model = options.first_layer == 0 && options.last_layer.value_or(c.layers - 1) + 1 == c.layers;
    if (!o.seed_head_model.empty() && whole_model)
        for (auto& f : scan::seed_head_facts(r)) facts.push_back(std::move(f));
    else if (!o.seed_head_model.empty())
        std::cout << "  R7, R12, T3: not stated: they read every layer of the seed-head model, and --layers scanned part of it\n";
    bool all_passed = true;
    for (const auto& f : facts) {
        std::cout << "  " << f.claim << " " << (f.passed ? "holds" : "FAILS") << ": " << f.statement << " (" << f.detail << ")\n";
        all_passed = all_passed && f.passed;
    }

    // Labels are hypotheses: list each with its heads; the evidence is in the JSON.
    std::map<std::string, std::vector<std::string>> labelled, undecided;
    std::map<std::string, std::set<std::string>> undecided_reasons;
    for (const auto& h : r.heads) {
        const std::string name = model::head_name(h.layer, h.head);
        for (const auto& l : h.labels.labels) labelled[l].push_back(name);
        for (const auto& u : h.labels.undecided) undecided[u.label].push_back(name), undecided_reasons[u.label].insert(u.reason);
    }
    const auto list = [](const std::vector<std::string>& heads) {
        std::string text;
        for (std::size_t k = 0; k < heads.size() && k < 12; ++k) text += (k ? " " : "") + heads[k];
        return heads.size() > 12 ? text + " ..." : text;
    };
    std::cout << "labels from weights (hypotheses about behaviour on " << r.input << "; thresholds in docs/SCAN-LABELS.md):" << (labelled.empty() ? " none" : "")
              << "\n";
    for (const auto& [label, heads] : labelled) std::cout << "  " << label << ": " << heads.size() << " heads: " << list(heads) << "\n";
    for (const auto& [label, heads] : undecided) std::cout << "  undecided " << label << ": " << heads.size() << " heads\n";
    // A label no head could be judged on for one reason (a tensor the file lacks, most often) is a
    // fact about the file, said once where it is seen, not only per head in the JSON.
    for (const auto& [label, heads] : undecided)
        if (heads.size() == r.heads.size() && undecided_reasons[label].size() == 1)
            std::cout << "  NOTE: every head leaves " << label << " undecided: " << *undecided_reasons[label].begin() << "\n";

    const nlohmann::json summary = model_summary(model);
    const std::size_t last_layer = options.last_layer.value_or(c.layers - 1);
    std::vector<scan::scan_figure> figures;
    if (!o.figures.empty()) {
        figures = scan::write_scan_figures(r, o.figures);
        std::cout << figures.size() << " figures in " << o.figures << "\n";
    }
    if (!o.markdown.empty()) {
        scan::markdown_options m;
        m.model_path = path, m.model_summary = model_summary_rows(summary), m.first_layer = options.first_layer, m.last_layer = last_layer;
        m.figures = figures;
        if (!o.figures.empty()) m.figure_directory = figures_relative_to(o.figures, o.markdown);
        report::write_report_file(o.markdown, scan::scan_markdown(r, m));
    }
    if (!o.dump_proxy.empty()) {
        scan::write_proxy_dump(o.dump_proxy, r);
        std::cout << "the certificates' inputs (proxy rows, mu_l, widths) in " << o.dump_proxy << "\n";
    }
    if (!o.json.empty()) {
        const std::filesystem::path file(o.json);
        if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path());
        scan::write_scan_files(file, r, facts, summary, path, options.first_layer, last_layer);
        std::cout << "the document in " << o.json << ", its " << r.composition.size() << " composition pairs' tensors in "
                  << (file.parent_path() / scan::composition_tensors_name(file)).string() << "\n";
    }
    return all_passed ? 0 : 1;
}

subcommand add_scan(CLI::App& app)
{
    auto options = std::make_shared<scan_cli_options>();
    auto* command = app.add_subcommand("scan", "Every attention head's weight metrics and the composition between heads (directory, .safetensors, .gguf)");
    command->add_option("PATH", options->path, "A model directory, a .safetensors file or a .gguf file");
    command->add_option("--seed-head-model", options->seed_head_model,
                        "Write a model holding the seeds' heads (seed 001's previous-token head, seed 000's semantic head) into this directory and "
                        "scan it instead of PATH; its facts check claims R7, R12 and T3")
        ->excludes(command->get_option("PATH"));
    command->add_option("--json", options->json, "Write every metric as JSON to this file, the composition pairs' tensors beside it (FILE.json -> FILE.tensors.safetensors)");
    command->add_option("--layers", options->layers, "Scan layers A-B (0-based, inclusive): their heads and every composition pair whose later head is in them (earlier layers are read for "
                        "what they write), so disjoint ranges shard a scan; qkov merge-scans joins the shards");
    command->add_option("--markdown", options->markdown, "Write a Markdown report (model, heads per layer, strongest composition edges, figures)");
    command->add_option("--figures", options->figures, "Write PNG figures into this directory (created if absent)");
    add_threads_option(command, options->threads);
    command->add_option("--calibrate", options->calibrate,
                        "Where mu_l and the tokens' content come from, and so which input the labels predict behaviour on: 'random' (default: the "
                        "vocabulary in a seeded random context), 'self' (text the model writes itself from BOS at temperature 1, seeded) or a file of "
                        "token ids, one sequence per line, decimal ids separated by spaces (docs/SCAN-LABELS.md)");
    command->add_option("--calibrate-samples", options->calibrate_samples, "With --calibrate self: how many sequences the model writes (default 20)")
        ->check(integer_in(1, 4096));
    command->add_option("--calibrate-length", options->calibrate_length, "With --calibrate self: tokens written after BOS per sequence (default 100)")
        ->check(integer_in(static_cast<std::int64_t>(forward::shortest_own_text), static_cast<std::int64_t>(forward::longest_own_text)));
    command->add_option("--calibrate-seed", options->calibrate_seed, "With --calibrate self: the seed of the sampler (default 1; qkov detect --text self uses --seed, 0)")
        ->check(integer_in(0, std::numeric_limits<std::int64_t>::max()));
    command->add_option("--timings", options->timings,
                        "Write where the time went as JSON to this file: per layer the forward pass, the per-token copying, the heads, the composition "
                        "and T3's share of it, and the time before the first layer");
    command->add_option("--dump-proxy", options->dump_proxy,
                        "Write the inputs the certificates are conditional on (each layer's proxy rows and mu_l, each head's score widths) as "
                        "float64 safetensors to this file, so another program can recompute every certified bound (docs/SCAN-LABELS.md)");
    command->add_option("--precision", options->precision,
                        "The per-token copying's products: float32 (default; every decision within float32's rounding bound recomputed in "
                        "float64, so the shares are the float64 scan's) or float64 throughout (docs/SCAN-LABELS.md)")
        ->check(CLI::IsMember({"float32", "float64"}));
    auto* prepare = command->add_option("--prepare-shards", options->prepare_shards,
                        "Scan nothing: compute once what shards with these ranges (A-B or A, comma-separated: $(paste -sd, ranges.txt)) share, "
                        "what the forward pass gives every layer, the circuit writes at each one's first layer and W_E^T W_U, and write it into "
                        "the --shared directory (docs/cluster.md)");
    command->add_option("--shared", options->shared,
                        "A directory of shard inputs: written by --prepare-shards, read by a shard (--layers A-B) instead of running the "
                        "forward pass; checked against the model and the options, the document is the same to the byte");
    // --precision too: the shared inputs are float64 whatever the shards' copying runs in.
    for (const char* scanned : {"--json", "--markdown", "--figures", "--layers", "--timings", "--dump-proxy", "--seed-head-model", "--precision"})
        prepare->excludes(command->get_option(scanned));
    command->add_flag("--quiet", options->quiet, "No progress lines on standard error (on a terminal they give the elapsed time and the time left)");
    command->add_option("--context", options->context, "Offsets 0..N of the RoPE offset profile and the slow-pair test (default: the model's max_position_embeddings, else 4096)")
        ->check(CLI::Range(std::size_t{1}, scan::largest_default_context));
    return {command, [options] { return scan(*options); }};
}

} // namespace qkov::app
