// The model's summary is the library's (qkov/model/model_summary.hpp), where the Python module
// reads it too; inspect, scan and detect name it as before.
#pragma once

#include "qkov/model/model_summary.hpp"

namespace qkov::app {

using model::model_summary;
using model::model_summary_rows;

} // namespace qkov::app
