// The weight labels of a scan still in memory (the Python module's qkov.Scan) for the comparison
// with behaviour, without writing its document's text: the parts of the document that
// read_for_comparison keeps (the model, the fingerprint, the input, each head's name, labels and
// predictions) are built as a tree by the document's own writers (scan_json.hpp) and read by
// parse_scan_labels, so a scan compared in memory is checked and read exactly as its file would be.
// The composition pairs, most of a large document, are never formatted.
#pragma once

#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "qkov/detect/scan_labels.hpp"
#include "qkov/scan/scan_json.hpp"
#include "qkov/scan/scan_json_keys.hpp"
#include "qkov/scan/scan_result.hpp"

namespace qkov::detect {

/// `model_summary` is the model's summary as the scan's document holds it (model_summary.hpp);
/// `name` names the scan in errors and in the comparison.
inline scan_labels scan_labels_of(const scan::scan_result& r, nlohmann::json model_summary, const std::string& name)
{
    namespace k = scan::scan_json_keys;
    nlohmann::json kept;
    kept[k::model] = std::move(model_summary);
    kept[k::input] = r.input;
    if (r.fingerprint) kept[k::model_fingerprint] = scan::detail::fingerprint_json(*r.fingerprint);
    auto& heads = kept[k::heads] = nlohmann::json::array();
    for (const auto& h : r.heads) {
        nlohmann::json whole = scan::detail::head_json(h), head = nlohmann::json::object();
        for (auto it = whole.begin(); it != whole.end(); ++it)
            if (read_for_comparison(3, it.key(), k::heads)) head[it.key()] = std::move(*it);
        heads.push_back(std::move(head));
    }
    return parse_scan_labels(kept, name);
}

} // namespace qkov::detect
