// qkov report --out DIR: the whole report in one command. It runs the experiments, the validation,
// the scan and detection of the seed-head model and the certified printer, then writes the claims
// summary from what they just produced, so every status in claims.md comes from this run, and an
// index (README.md) linking every file. The scans and detection of real trained weights run when
// their models directory is found (--models, $QKOV_SHARED_DIR, ../shared), and are listed as
// skipped otherwise: the repository does not hold those files.
#pragma once

#include "subcommand.hpp"

namespace CLI {
class App;
}

namespace qkov::app {

subcommand add_report(CLI::App& app);

} // namespace qkov::app
