// What `qkov --help` and each subcommand's help end with (examples a person can run), and the
// nearest known option when an option is not recognised.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace CLI {
class App;
}

namespace qkov::app {

/// Adds "Examples:" to the help of every subcommand of `app` (two each), and to `app`'s own help one
/// line per subcommand with its first example.
void add_examples(CLI::App& app);

/// The number of single-character insertions, deletions and substitutions between a and b.
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The known option (or subcommand) nearest to `unknown` (its part before any '='), or empty when
/// none is near enough to be a likely typo: at most 2 edits, or a third of the longer name for long names.
std::string nearest_option(std::string_view unknown, const std::vector<std::string>& known);

/// Every spelling of the options of `command` ("--max-pos", "-h", ...).
std::vector<std::string> option_spellings(const CLI::App& command);

} // namespace qkov::app
