#include "model_runs.hpp"

#include <utility>

#include "qkov/model/open_model.hpp"
#include "qkov/scan/scan_model.hpp"

namespace qkov::runs {

model::attention_model open_model(const std::filesystem::path& path)
{
    return model::open_model(path);
}

scan::scan_result scan_model(const model::attention_model& m, scan::scan_options options)
{
    return scan::scan_model(m, std::move(options));
}

} // namespace qkov::runs
