#include "model_runs.hpp"

#include <utility>

#include "qkov/model/open_model.hpp"
#include "qkov/scan/scan_model.hpp"
#include "qkov/scan/shard_preparation.hpp"

namespace qkov::runs {

model::attention_model open_model(const std::filesystem::path& path)
{
    return model::open_model(path);
}

scan::scan_result scan_model(const model::attention_model& m, scan::scan_options options)
{
    return scan::scan_model(m, std::move(options));
}

void prepare_shard_inputs(const model::attention_model& m, const std::vector<std::size_t>& starts, const std::filesystem::path& dir,
                          scan::scan_options options, const std::function<void(std::size_t layer)>& on_layer)
{
    scan::prepare_shard_inputs(m, starts, dir, std::move(options), on_layer);
}

} // namespace qkov::runs
