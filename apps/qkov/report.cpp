#include "report.hpp"

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <memory>
#include <spawn.h>
#include <stdexcept>
#include <string>
#include <sys/wait.h>
#include <vector>

#include "qkov/report/report_file.hpp"

#include "claims.hpp"
#include "reproduce.hpp"
#include "detect.hpp"
#include "scan.hpp"
#include "validate.hpp"

extern char** environ;

namespace qkov::app {
namespace {

namespace fs = std::filesystem;

struct report_options {
    fs::path out_dir = "report";
    claims_options claims;       ///< proofs, catalogue, include and build directories
    fs::path certified_printer;  ///< empty: <build-dir>/proofs/print_certified_values
    bool small = false;          ///< experiments at CTest's size
    bool quick = false;          ///< validation with few samples
    std::vector<int> digits = validate_options{}.digits;
    fs::path models_dir;  ///< holds real_models/; empty: $QKOV_SHARED_DIR, else ../shared
};

/// A model with real trained weights that the report scans (and, for stories260K, detects), found
/// under the models directory; the parts on the repository's own models always run.
struct real_model {
    std::string name;
    fs::path model;     ///< what `qkov scan` reads
    bool detect;        ///< also run `qkov detect` on it, beside its scan
};

std::vector<real_model> real_models(const fs::path& models_dir)
{
    const fs::path real = models_dir / "real_models";
    return {{"gpt2-small-attention", real / "gpt2-small-attention", false}, {"stories260K", real / "llama2c-stories260K" / "hf", true}};
}

/// Where the real models are looked for: --models, else $QKOV_SHARED_DIR, else ../shared.
fs::path models_directory(const fs::path& option)
{
    if (!option.empty()) return option;
    const char* env = std::getenv("QKOV_SHARED_DIR");
    return env != nullptr && *env != 0 ? fs::path(env) : fs::path("../shared");
}

constexpr const char* how_to_get_weights =
    "point QKOV_SHARED_DIR or qkov report --models at a directory holding real_models/; docs/commands/report.md#real-model-weights says where they come from";

/// The progress line of one step, printed before it runs so a long step is visible.
void announce(const char* step)
{
    std::printf("report: %s\n", step);
    std::fflush(stdout);
}

/// One index line of a scan, linking its Markdown and JSON.
std::string scan_index_line(const std::string& name, const std::string& what, int status)
{
    return "- [scans/" + name + ".md](scans/" + name + ".md) ([JSON](scans/" + name + ".json)): " + what +
           (status == 0 ? "" : " (A STATED FACT FAILED)") + "\n";
}

/// Scans one model into <out>/scans/<name>.{json,md} and <name>-figures; returns the exit status.
int scan_into(const fs::path& out_dir, const std::string& name, scan_cli_options so)
{
    so.json = (out_dir / "scans" / (name + ".json")).string();
    so.markdown = (out_dir / "scans" / (name + ".md")).string();
    so.figures = (out_dir / "scans" / (name + "-figures")).string();
    return scan(so);
}

/// Detects one model's heads beside its scan into <out>/detections/<name>.*; returns the index
/// line, and adds one to `failed_parts` when the detection fails.
std::string detect_into(const fs::path& out_dir, const std::string& name, const fs::path& model, int& failed_parts)
{
    detect_cli_options d;
    d.path = model.string(), d.scan = (out_dir / "scans" / (name + ".json")).string();
    d.json = (out_dir / "detections" / (name + ".json")).string();
    d.markdown = (out_dir / "detections" / (name + ".md")).string();
    d.figures = (out_dir / "detections" / (name + "-figures")).string();
    const int status = detect(d);
    failed_parts += status == 0 ? 0 : 1;
    return "- [detections/" + name + ".md](detections/" + name + ".md) ([JSON](detections/" + name + ".json)): " + model.string() +
           ", beside its scan" + (status == 0 ? "" : " (FAILED)") + "\n";
}

// The certified values stay a separate program that qkov runs: the registry is filled by the proof
// objects' static initialisers, so linking it into qkov would rebuild and relink the tool on every
// proof edit and make the CLI depend on QKOV_BUILD_PROOFS. The printer is found in the build tree.
fs::path certified_printer(const report_options& o)
{
    const fs::path printer = o.certified_printer.empty() ? o.claims.build_dir / "proofs" / "print_certified_values" : o.certified_printer;
    if (!fs::is_regular_file(printer))
        throw std::runtime_error("report: the certified printer " + printer.string() +
                                 " does not exist (build the print_certified_values target, or pass --certified-printer)");
    return printer;
}

int run_certified_printer(const fs::path& printer, const fs::path& markdown)
{
    const std::string program = printer.string(), target = markdown.string();
    char* argv[] = {const_cast<char*>(program.c_str()), const_cast<char*>(target.c_str()), nullptr};
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    // Its table goes to the file; qkov's own output stays a progress log.
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    pid_t pid = 0;
    const int error = posix_spawn(&pid, program.c_str(), &actions, nullptr, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    if (error != 0) throw std::runtime_error("report: cannot run " + program + ": " + std::strerror(error));
    int status = 0;
    if (waitpid(pid, &status, 0) < 0) throw std::runtime_error("report: lost " + program + ": " + std::strerror(errno));
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/// " --digits 50" when the run chose other precisions than the default, so the index says how it was made.
std::string digits_option(const std::vector<int>& digits)
{
    if (digits == validate_options{}.digits) return {};
    std::string text = " --digits ";
    for (std::size_t k = 0; k < digits.size(); ++k) text += (k ? "," : "") + std::to_string(digits[k]);
    return text;
}

int run(const report_options& o)
{
    if (o.out_dir.empty()) throw std::invalid_argument("report --out: the output directory name is empty");
    const fs::path printer = certified_printer(o);  // before the long steps: a missing printer fails at once
    fs::create_directories(o.out_dir);
    int failed_parts = 0;

    announce("experiments");
    failed_parts += reproduce({o.out_dir, o.small}) == 0 ? 0 : 1;

    announce("validation");
    validate_options v;
    v.quick = o.quick;
    v.digits = o.digits;
    v.markdown = (o.out_dir / "validation.md").string();
    v.json = (o.out_dir / "validation.json").string();
    failed_parts += validate(v) == 0 ? 0 : 1;

    // The repository's own models always: the seed-head model qkov writes, scanned, then run
    // through its forward pass and set beside that scan.
    announce("scans");
    fs::create_directories(o.out_dir / "scans");
    std::vector<fs::path> scan_files;
    std::string scan_index, detect_index, skipped;
    scan_cli_options seed;
    // The report's own copy of the seed-head model: an earlier report's is replaced (scan writes
    // a model only into a new or empty directory, so a second run would stop there).
    fs::remove_all(o.out_dir / "scans" / "seed-head-model");
    seed.seed_head_model = (o.out_dir / "scans" / "seed-head-model").string();
    const int seed_status = scan_into(o.out_dir, "seed-heads", seed);
    failed_parts += seed_status == 0 ? 0 : 1;
    scan_files.push_back(o.out_dir / "scans" / "seed-heads.json");
    scan_index += scan_index_line("seed-heads", "the seed-head model", seed_status);

    // Real trained weights live outside the repository. Without a models directory (a fresh clone)
    // their parts are skipped and listed; a models directory that lacks one of them is a broken
    // setup and fails, so a machine meant to run every part cannot skip one unnoticed.
    // Absolute, so a skip line says where the weights were looked for whatever the working directory.
    const fs::path models_dir = fs::absolute(models_directory(o.models_dir)).lexically_normal();
    const bool models_found = fs::is_directory(models_dir);
    const auto all_real = real_models(models_dir);
    std::vector<const real_model*> to_detect;  // scanned, and whose forward pass the report runs
    for (const auto& m : all_real) {
        if (!models_found) {
            const std::string line = m.name + (m.detect ? " scan and detection" : " scan") + ": skipped: weights not found at " + m.model.string() + " (" + how_to_get_weights + ")";
            std::printf("report: %s\n", line.c_str());
            skipped += "- " + line + "\n";
            continue;
        }
        if (!fs::exists(m.model)) {
            std::fprintf(stderr, "report: %s not found, although the models directory %s exists\n", m.model.c_str(), models_dir.c_str());
            scan_index += "- " + m.name + ": NOT SCANNED, " + m.model.string() + " not found in the models directory\n";
            ++failed_parts;
            continue;
        }
        scan_cli_options so;
        so.path = m.model.string();
        const int status = scan_into(o.out_dir, m.name, so);
        failed_parts += status == 0 ? 0 : 1;
        scan_files.push_back(o.out_dir / "scans" / (m.name + ".json"));
        scan_index += scan_index_line(m.name, m.model.string(), status);
        if (m.detect) to_detect.push_back(&m);
    }

    // Behaviour beside weights: the seed-head model always, and each real model whose whole
    // forward pass is in the models directory.
    announce("detection");
    detect_index += detect_into(o.out_dir, "seed-heads", seed.seed_head_model, failed_parts);
    for (const auto* m : to_detect) detect_index += detect_into(o.out_dir, m->name, m->model, failed_parts);

    announce("certified values");
    if (run_certified_printer(printer, o.out_dir / "certified.md") != 0) {
        std::fprintf(stderr, "report: %s failed\n", printer.c_str());
        ++failed_parts;
    }

    // Last: the claims summary reads what the steps above wrote.
    claims_options c = o.claims;
    c.validation = o.out_dir / "validation.json";
    c.experiments = o.out_dir / "experiments.json";
    c.scans = scan_files;
    report::write_report_file(o.out_dir / "claims.md", "# qkov claims summary\n\nGenerated by `qkov report` from proofs/, the build "
                                                       "tree and this run's validation, experiments and scans.\n\n" +
                                                           claims_summary_markdown(c));

    report::write_report_file(o.out_dir / "README.md",
                              "# qkov report\n\nWritten by `qkov report --out " + o.out_dir.string() + (o.small ? " --small" : "") +
                                  (o.quick ? " --quick" : "") + digits_option(o.digits) +
                                  "`.\n\n"
                                  "- [claims.md](claims.md): every claim of docs/CLAIMS.md with every check of every kind and its status in this run\n"
                                  "- [certified.md](certified.md): the numbers the compile-time proofs certified\n"
                                  "- [index.md](index.md): the seed experiments, their tables and figures "
                                  "([experiments.json](experiments.json): their claim ids and failed facts)\n"
                                  "- [validation.md](validation.md): high-precision residuals against their bounds "
                                  "([validation.json](validation.json))\n"
                                  "- scans of model weights (`qkov scan`; labels are hypotheses, docs/SCAN-LABELS.md):\n" +
                                  scan_index +
                                  "- head behaviour from the forward pass (`qkov detect`, docs/DETECT.md):\n" + detect_index +
                                  (skipped.empty() ? "" : "\n## Skipped\n\nThe parts on real trained weights, whose files are not in the repository:\n\n" + skipped));
    const std::string skipped_note = skipped.empty() ? "" : "; the real-model parts skipped: weights not found";
    std::printf("wrote %s (%s%s)\n", (o.out_dir / "README.md").c_str(), failed_parts == 0 ? "every part passed" : "SOME PARTS FAILED",
                skipped_note.c_str());
    return failed_parts == 0 ? 0 : 1;
}

} // namespace

subcommand add_report(CLI::App& app)
{
    auto o = std::make_shared<report_options>();
    auto* c = app.add_subcommand("report", "Write the whole report: claims, certified values, experiments, validation, scans and an index");
    c->add_option("--out", o->out_dir, "Output directory")->capture_default_str();
    c->add_option("--build-dir", o->claims.build_dir, "Build tree: its proofs.stamp and print_certified_values")
        ->required()
        ->check(CLI::ExistingDirectory);
    c->add_option("--proofs", o->claims.proofs_dir, "The proofs directory")->check(CLI::ExistingDirectory);
    c->add_option("--catalogue", o->claims.catalogue, "The claims catalogue")->check(CLI::ExistingFile);
    c->add_option("--include", o->claims.include_dir, "The headers the proofs use")->check(CLI::ExistingDirectory);
    c->add_option("--certified-printer", o->certified_printer, "The print_certified_values program (default: in --build-dir)");
    c->add_flag("--small", o->small, "Experiments at small sizes (a quick check)");
    c->add_flag("--quick", o->quick, "Validation with few samples (a smoke run)");
    c->add_option("--models,--shared-dir", o->models_dir,
                  "Directory holding real_models/ (default: $QKOV_SHARED_DIR, else ../shared); when it does not exist, the real-model parts "
                  "are skipped and listed");
    c->add_option("--digits", o->digits, "Validation precisions (50 and/or 100)")->delimiter(',')->check(validation_digits());
    return {c, [o] { return run(*o); }};
}

} // namespace qkov::app
