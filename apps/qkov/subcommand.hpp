// A subcommand registered on the CLI11 app: main() runs it after parsing when it was given.
#pragma once

#include <functional>
#include <string>

namespace CLI {
class App;
}

namespace qkov::app {

struct subcommand {
    CLI::App* command = nullptr;
    std::function<int()> run;  ///< the process exit code
    /// What to reduce when the command runs out of memory, said after "out of memory: "; unset for
    /// the commands whose input is a model (model_out_of_memory_advice, out_of_memory.hpp).
    std::function<std::string()> out_of_memory_advice{};
};

} // namespace qkov::app
