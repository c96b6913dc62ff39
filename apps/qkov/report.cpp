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
    fs::path shared_dir;  ///< real_models/ for the scans; empty: $QKOV_SHARED_DIR, else ../shared
};

/// The models the report scans: the seed-head model qkov writes itself, then the real ones.
struct report_scan {
    std::string name;
    fs::path model;  ///< empty for the seed-head model
};

std::vector<report_scan> report_scans(const fs::path& shared)
{
    return {{"seed-heads", {}},
            {"gpt2-small-attention", shared / "real_models" / "gpt2-small-attention"},
            {"stories260K", shared / "real_models" / "llama2c-stories260K" / "hf"}};
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

    std::printf("report: experiments\n");
    std::fflush(stdout);
    failed_parts += reproduce({o.out_dir, o.small}) == 0 ? 0 : 1;

    std::printf("report: validation\n");
    std::fflush(stdout);
    validate_options v;
    v.quick = o.quick;
    v.digits = o.digits;
    v.markdown = (o.out_dir / "validation.md").string();
    v.json = (o.out_dir / "validation.json").string();
    failed_parts += validate(v) == 0 ? 0 : 1;

    std::printf("report: scans\n");
    std::fflush(stdout);
    const char* env = std::getenv("QKOV_SHARED_DIR");
    const fs::path shared = !o.shared_dir.empty() ? o.shared_dir : env != nullptr && *env != 0 ? fs::path(env) : fs::path("../shared");
    fs::create_directories(o.out_dir / "scans");
    std::vector<fs::path> scan_files;
    std::string scan_index;
    for (const auto& s : report_scans(shared)) {
        scan_cli_options so;
        so.json = (o.out_dir / "scans" / (s.name + ".json")).string();
        so.markdown = (o.out_dir / "scans" / (s.name + ".md")).string();
        so.figures = (o.out_dir / "scans" / (s.name + "-figures")).string();
        if (s.model.empty()) so.seed_head_model = (o.out_dir / "scans" / "seed-head-model").string();
        else if (!fs::exists(s.model)) {
            // A missing model is said in the index and counted as a failed part, never skipped silently.
            std::fprintf(stderr, "report: %s not found (set --shared-dir or QKOV_SHARED_DIR)\n", s.model.c_str());
            scan_index += "- " + s.name + ": NOT SCANNED, " + s.model.string() + " not found\n";
            ++failed_parts;
            continue;
        } else so.path = s.model.string();
        const int status = scan(so);
        failed_parts += status == 0 ? 0 : 1;
        scan_files.push_back(so.json);
        scan_index += "- [scans/" + s.name + ".md](scans/" + s.name + ".md) ([JSON](scans/" + s.name + ".json)): " +
                      (s.model.empty() ? std::string("the seed-head model") : s.model.string()) + (status == 0 ? "" : " (A STATED FACT FAILED)") + "\n";
    }

    // Behaviour beside weights: stories260K, the trained model whose whole forward pass is in the
    // shared directory, detected and compared with its scan above.
    std::printf("report: detection\n");
    std::fflush(stdout);
    std::string detect_index;
    const fs::path stories = shared / "real_models" / "llama2c-stories260K" / "hf";
    const fs::path stories_scan = o.out_dir / "scans" / "stories260K.json";
    if (!fs::exists(stories) || !fs::exists(stories_scan)) {
        std::fprintf(stderr, "report: %s or its scan not found: no detection\n", stories.c_str());
        detect_index = "- stories260K: NOT DETECTED, " + stories.string() + " or its scan not found\n";
        ++failed_parts;
    } else {
        detect_cli_options d;
        d.path = stories.string(), d.scan = stories_scan.string();
        d.json = (o.out_dir / "detections" / "stories260K.json").string();
        d.markdown = (o.out_dir / "detections" / "stories260K.md").string();
        d.figures = (o.out_dir / "detections" / "stories260K-figures").string();
        failed_parts += detect(d) == 0 ? 0 : 1;
        detect_index = "- [detections/stories260K.md](detections/stories260K.md) ([JSON](detections/stories260K.json)): " + stories.string() +
                       ", beside its scan\n";
    }

    std::printf("report: certified values\n");
    std::fflush(stdout);
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
                                  "- head behaviour from the forward pass (`qkov detect`, docs/DETECT.md):\n" + detect_index);
    std::printf("wrote %s (%s)\n", (o.out_dir / "README.md").c_str(), failed_parts == 0 ? "every part passed" : "SOME PARTS FAILED");
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
    c->add_option("--shared-dir", o->shared_dir, "Directory holding real_models/ for the scans (default: $QKOV_SHARED_DIR, else ../shared)")
        ->check(CLI::ExistingDirectory);
    c->add_option("--digits", o->digits, "Validation precisions (50 and/or 100)")->delimiter(',')->check(validation_digits());
    return {c, [o] { return run(*o); }};
}

} // namespace qkov::app
