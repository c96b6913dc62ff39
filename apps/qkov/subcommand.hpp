// A subcommand registered on the CLI11 app: main() runs it after parsing when it was given.
#pragma once

#include <functional>

namespace CLI {
class App;
}

namespace qkov::app {

struct subcommand {
    CLI::App* command = nullptr;
    std::function<int()> run;  ///< the process exit code
};

} // namespace qkov::app
