// The keys of the scan's JSON document that its readers need (detect/scan_labels.hpp), spelled
// once for the writer (scan_json.hpp) and every reader. Only the names: a reader includes this
// without the scan itself.
#pragma once

namespace qkov::scan {

/// The keys a reader of the document needs (detect/scan_labels.hpp), spelled once.
namespace scan_json_keys {
inline constexpr const char* schema = "schema";
inline constexpr const char* schema_name = "qkov.scan/2";
inline constexpr const char* model = "model";
inline constexpr const char* heads = "heads";
inline constexpr const char* layer = "layer";
inline constexpr const char* head = "head";
inline constexpr const char* labels = "labels";
inline constexpr const char* certified = "certified";
inline constexpr const char* mean_field = "mean_field";
inline constexpr const char* by_offset = "attention_by_offset";
inline constexpr const char* bos = "bos";
inline constexpr const char* token_copying = "token_copying";
inline constexpr const char* top1_share = "top1_share";
inline constexpr const char* bottom10_share = "bottom10_share";
} // namespace scan_json_keys

} // namespace qkov::scan
