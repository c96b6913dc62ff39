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
#include "qkov/detect/detection_markdown.hpp"
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

using namespace detect::detection_tables;

template <class T>
int run_detection(const model::attention_model& model, const detect_cli_options& o)
{
    const auto start = std::chrono::steady_clock::now();
    const auto& c = model.config();
    detect::detection_request request;
    auto& options = request.options;
    options.length = o.length, options.samples = o.samples, options.seed = o.seed, options.bos = o.bos;
    // The text, read before any forward pass, as the scan is.
    auto& text = request.text;
    namespace inputs = scan::scan_json_keys;
    if (o.text == "self") {
        text.input = inputs::input_own_text;
        text.length = o.text_length.value_or(text.length);
    } else if (!o.text.empty()) {
        if (o.text_length) throw std::invalid_argument("qkov: --text-length sets the length of the model's own text: it needs --text self, not a file");
        text.input = inputs::input_file + o.text;
        const auto ids = io::read_token_id_text(o.text, {.vocabulary = c.vocab_size, .context = io::calibration_context(c.max_positions, true),
                                                         .bos = static_cast<std::size_t>(detect::detection_bos(options, c))});
        text.sequences = detect::text_sequences(ids, detect::detection_bos(options, c), text.input);
    } else if (o.text_length) {
        throw std::invalid_argument("qkov: --text-length sets the length of the model's own text: it needs --text self");
    }
    if (!o.scan.empty()) request.scan = detect::read_scan_labels(o.scan), request.scan_name = o.scan, request.scan_argument = "--scan " + o.scan;
    // The scan is checked against the model, and its input against the detection's, before the
    // weights are read, and the sequences before any forward pass: a wrong argument costs nothing.
    const auto pairing = detect::check_scan_pairing(model, request);
    if (!pairing.warning.empty()) std::cerr << "qkov detect: warning: " << pairing.warning << "\n";
    // Weights that would crowd out the pass's own memory are streamed: one layer at a time.
    const auto bytes = forward::resident_weight_bytes<T>(model);
    const auto headroom = io::memory_headroom();
    const auto residence = forward::residence_within(bytes, headroom);
    if (residence == forward::weight_residence::streamed)
        std::cerr << "qkov detect: the weights would take " << io::megabytes(bytes) << " as " << o.dtype << ", more than half of the " << io::megabytes(*headroom)
                  << " this process may use: each layer is read from the file when a sequence reaches it (one layer held; the file read once per sequence)\n";
    const forward::decoder<T> pass(model, residence);
    detect::check_sequences(pass, request);
    std::string running = "random tokens";
    options.on_sample = [&](std::size_t done, std::size_t total) {
        const std::chrono::duration<double> t = std::chrono::steady_clock::now() - start;
        std::cerr << "qkov detect: " << running << ": sample " << done << " of " << total << " (" << report::format("%.1f", t.count()) << " s)\n";
    };
    options.on_copying_layer = [&](std::size_t done, std::size_t total) {
        const std::chrono::duration<double> t = std::chrono::steady_clock::now() - start;
        std::cerr << "qkov detect: " << running << ": copying ranked through layer " << done << " of " << total << " (" << report::format("%.1f", t.count())
                  << " s)\n";
    };
    request.after_random_tokens = [&](const detect::detection_result& random) {
        if (!random.copying_not_measured.empty()) std::cerr << "qkov detect: copying not measured: " << random.copying_not_measured << "\n";
        running = text.input;
        if (text.input == inputs::input_own_text)
            std::cerr << "qkov detect: the model writing " << o.samples << " sequences of " << text.length << " tokens from BOS (temperature 1, seed " << o.seed
                      << ")\n";
    };
    std::cerr << "qkov detect: " << o.path << ": " << c.layers << " layers x " << c.heads << " heads, " << o.samples << " samples of " << 2 * o.length + 1
              << " tokens, " << o.dtype << "\n";
    const auto run = runs::run_detection(pass, request, pairing);
    const auto& r = run.random;
    const auto& judged = run.judged_result();

    std::cout << heads_table(r).aligned() << shown_lines(r);
    if (run.text) std::cout << beside_heading(r, *run.text) << "\n" << beside_table(r, *run.text).aligned() << "on " << run.text->input << ":\n" << shown_lines(*run.text);
    if (run.compared) {
        const auto& comparison = *run.compared;
        std::cout << "weights against behaviour on " << judged.input << " (" << o.scan << "):\n"
                  << side_by_side_table(run.scanned, judged, comparison).aligned() << counts_table(comparison).aligned() << counts_line(comparison) << "\n";
        if (const auto bad = certified_contradictions(comparison); !bad.empty()) {
            const std::string loud = "qkov detect: CERTIFIED LABELS CONTRADICTED BY BEHAVIOUR: " + report::joined(bad) + "\n";
            std::cout << loud;
            std::cerr << loud;
        }
    }

    const nlohmann::json summary = model_summary(model);
    std::vector<detect::detection_figure> figures;
    if (!o.figures.empty()) {
        std::vector<std::string> unpredicted;
        figures = runs::write_detection_figures(pass, run, o.figures, unpredicted);
        if (!unpredicted.empty())
            std::cerr << "qkov detect: no prediction figure for " << report::joined(unpredicted) << ": no head of " << o.scan << " predicts it\n";
        std::cout << figures.size() << " figures in " << o.figures << "\n";
    }
    // The Markdown report and the JSON document are written together: both or neither (a full disk
    // fails before either is replaced).
    std::string markdown, json;
    if (!o.markdown.empty()) markdown = run.markdown(o.path, summary, figures, o.figures.empty() ? "" : figures_relative_to(o.figures, o.markdown));
    if (!o.json.empty()) json = detect::detection_text(run.document(summary, o.path));
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
