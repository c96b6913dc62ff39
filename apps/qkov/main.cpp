// qkov: the command-line tool. Every subcommand is one header and source pair whose add_<name>
// registers it on the CLI11 app and returns how to run it (subcommand.hpp); main() is the table:
//   qkov claims      every check of every claim: proof files, and given run data validation rows and experiments.
//   qkov reproduce   every seed experiment at full size, into report/index.md (reproduce.cpp).
//   qkov validate    residuals of the identities at 50 and 100 digits (validate.cpp).
//   qkov audit-rope  a RoPE implementation's precision against a 100-digit reference (audit_rope.cpp).
//   qkov inspect     a model file's architecture, geometry and attention heads (inspect.cpp).
//   qkov report      all of the above that makes the report, into one directory (report.cpp).
//   qkov scan        every head's weight metrics and the composition between heads (scan.cpp).
//   qkov merge-scans the scans of disjoint layer ranges joined into the whole scan (merge_scans.cpp).
//   qkov detect      every head's behaviour from the model's forward pass, beside a scan (detect.cpp).
#include <CLI/CLI.hpp>
#include <exception>
#include <filesystem>
#include <new>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "audit_rope.hpp"
#include "claims.hpp"
#include "command_help.hpp"
#include "detect.hpp"
#include "inspect.hpp"
#include "merge_scans.hpp"
#include "out_of_memory.hpp"
#include "report.hpp"
#include "reproduce.hpp"
#include "scan.hpp"
#include "validate.hpp"

int main(int argc, char** argv)
{
    CLI::App app{"qkov: verified mathematics of transformer attention heads", "qkov"};  // "Usage: qkov", not the path it ran from
    app.require_subcommand(1);

    using qkov::app::subcommand;
    // In the order --help lists them: what most people come for first.
    const std::vector<subcommand> subcommands{qkov::app::add_scan(app),       qkov::app::add_merge_scans(app), qkov::app::add_detect(app),
                                              qkov::app::add_inspect(app),    qkov::app::add_audit_rope(app),
                                              qkov::app::add_validate(app),   qkov::app::add_reproduce(app),
                                              qkov::app::add_report(app),     qkov::app::add_claims(app)};

    // CLI11 answers an unknown first word with "A subcommand is required"; name it, and the known ones.
    if (argc > 1 && argv[1][0] != '-' && app.get_subcommands([&](CLI::App* sub) { return sub->check_name(argv[1]); }).empty()) {
        std::string known;
        std::vector<std::string> names;
        for (std::size_t k = 0; k < subcommands.size(); ++k) {
            names.push_back(subcommands[k].command->get_name());
            known += (k == 0 ? "" : k + 1 == subcommands.size() ? " or " : ", ") + names.back();
        }
        const std::string near = qkov::app::nearest_option(argv[1], names);
        std::cerr << "qkov: unknown subcommand '" << argv[1] << "' (" << (near.empty() ? "" : "did you mean " + near + "? ") << "expected " << known
                  << "; see qkov --help)\n";
        return 109;  // CLI11's exit code for arguments it did not expect
    }
    qkov::app::add_examples(app);
    try {
        app.parse(argc, argv);
    } catch (const CLI::ExtrasError& e) {
        // An option the subcommand does not know: name the nearest one it does, the likely typo.
        const CLI::App* command = &app;
        for (const auto& s : subcommands)
            if (s.command->parsed()) command = s.command;
        std::string hint;
        for (const auto& extra : app.remaining(true))
            if (extra.starts_with("-"))
                if (const auto near = qkov::app::nearest_option(extra, qkov::app::option_spellings(*command)); !near.empty()) {
                    hint = "; did you mean " + near + " (" + extra + ")?";
                    break;
                }
        std::cerr << e.what() << hint << "\nRun with --help for more information.\n";
        return e.get_exit_code();
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    }
    qkov::app::keep_memory_reserve();  // so that a bad_alloc reaches the message below
    const subcommand* running = nullptr;  // for the messages below
    std::string command;
    try {
        for (const auto& s : subcommands)
            if (s.command->parsed()) {
                running = &s;
                command = s.command->get_name();
                return s.run();
            }
    } catch (const std::bad_alloc&) {
        // Each command says what of its input to reduce: a model's sizes and options, or the JSON
        // documents it joins or reads.
        std::cerr << "qkov: " << command << ": out of memory: "
                  << (running != nullptr && running->out_of_memory_advice ? running->out_of_memory_advice() : qkov::app::model_out_of_memory_advice())
                  << "\n";
        return 1;
    } catch (const std::filesystem::filesystem_error& e) {
        // std::filesystem says "filesystem error: cannot create directories: Permission denied [path]":
        // say which path, what was being done, and the system's reason, as every other message does.
        std::string_view what = e.what();
        if (what.starts_with("filesystem error: ")) what.remove_prefix(18);
        const auto operation = what.substr(0, what.find(':'));
        std::cerr << "qkov: " << command << ": " << operation << " " << e.path1().string() << (e.path2().empty() ? "" : " -> " + e.path2().string())
                  << ": " << e.code().message() << "\n";
        return 1;
    } catch (const std::exception& e) {
        // Library messages already start with "qkov: "; print the prefix once.
        std::string_view message = e.what();
        if (message.starts_with("qkov: ")) message.remove_prefix(6);
        std::cerr << "qkov: " << message << "\n";
        return 1;
    }
    return 0;
}
