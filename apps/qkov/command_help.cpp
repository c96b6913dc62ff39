#include "command_help.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <numeric>
#include <stdexcept>

namespace qkov::app {
namespace {

struct command_examples {
    std::string_view name;
    std::array<std::string_view, 2> examples;  ///< the first one also appears in `qkov --help`
};

// Each first example runs on a fresh clone: the seed-head model is written by qkov itself, and the
// real models are found under ../shared only where they have been put.
constexpr std::array<command_examples, 9> examples{{
    {"scan",
     {"qkov scan --seed-head-model seed-model --markdown seed.md --figures seed-figures",
      "qkov scan ../shared/real_models/llama2c-stories260K/hf --json scan.json --layers 0-1"}},
    {"merge-scans",
     {"qkov merge-scans s0.json s1.json --json whole.json   (after qkov scan seed-model --layers 0 --json s0.json, and --layers 1 --json s1.json)",
      "qkov merge-scans shards/scan-*.json --json scan.json   (one qkov scan MODEL --layers A-B per cluster task: docs/cluster.md)"}},
    {"detect",
     {"qkov detect seed-model --scan seed.json --markdown detect.md   (after qkov scan --seed-head-model seed-model --json seed.json)",
      "qkov detect ../shared/real_models/llama2c-stories260K/hf --scan scan.json --json detect.json --figures detect-figures"}},
    {"inspect",
     {"qkov inspect seed-model   (after qkov scan --seed-head-model seed-model)",
      "qkov inspect ../shared/real_models/llama2c-stories260K/stories260K.gguf --json inspect.json"}},
    {"audit-rope",
     {"qkov audit-rope --d 128 --base 500000 --dtype bf16 --max-pos 131072",
      "qkov audit-rope --d 128 --dtype fp32 --npy my_cos_sin_table.npy --json audit.json"}},
    {"validate", {"qkov validate --quick --digits 50", "qkov validate --backend mpfr --markdown validation.md --json validation.json"}},
    {"reproduce", {"qkov reproduce --small --out small-report", "qkov reproduce --out report"}},
    {"report",
     {"qkov report --out report --build-dir build/default",
      "qkov report --out report --build-dir build/default --models /data/qkov-shared --small --quick"}},
    {"claims",
     {"qkov claims --build-dir build/default   (from the repository's root: proofs/, include/, docs/CLAIMS.md)",
      "qkov claims --build-dir build/default --validation report/validation.json --experiments report/experiments.json"}},
}};

} // namespace

void add_examples(CLI::App& app)
{
    std::string overview = "Examples (qkov SUBCOMMAND --help for each one's options and a second example):\n";
    for (const auto& e : examples) {
        CLI::App* command = app.get_subcommand(std::string(e.name));  // throws for a name that is not registered
        command->footer("Examples:\n  " + std::string(e.examples[0]) + "\n  " + std::string(e.examples[1]) + "\n");
        overview += "  " + std::string(e.examples[0]) + "\n";
    }
    if (app.get_subcommands([](CLI::App*) { return true; }).size() != examples.size())
        throw std::logic_error("qkov: a subcommand has no examples in command_help.cpp");
    app.footer(overview + "Documentation: README.md, and docs/commands/<subcommand>.md for each subcommand.\n");
}

std::size_t edit_distance(std::string_view a, std::string_view b)
{
    std::vector<std::size_t> row(b.size() + 1);
    std::iota(row.begin(), row.end(), std::size_t{0});
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t above = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[b.size()];
}

std::string nearest_option(std::string_view unknown, const std::vector<std::string>& known)
{
    unknown = unknown.substr(0, unknown.find('='));
    std::string best;
    std::size_t best_distance = std::string_view::npos;
    for (const auto& k : known) {
        const std::size_t distance = edit_distance(unknown, k);
        if (distance < best_distance) best = k, best_distance = distance;
    }
    const std::size_t allowed = std::max<std::size_t>(2, std::max(unknown.size(), best.size()) / 3);
    return best_distance <= allowed ? best : std::string{};
}

std::vector<std::string> option_spellings(const CLI::App& command)
{
    std::vector<std::string> spellings;
    for (const CLI::Option* o : command.get_options()) {
        for (const auto& l : o->get_lnames()) spellings.push_back("--" + l);
        for (const auto& s : o->get_snames()) spellings.push_back("-" + s);
    }
    return spellings;
}

} // namespace qkov::app
