// The name and version each JSON document of the tool carries in its "schema" key, and the file
// in docs/schemas/ that specifies it (<name>.schema.json). A change that breaks a reader of the
// document raises the version here and in that file.
#pragma once

namespace qkov::app::schemas {

inline constexpr const char* inspect = "qkov.inspect/2";        ///< qkov inspect --json
inline constexpr const char* audit_rope = "qkov.audit-rope/1";  ///< qkov audit-rope --json
inline constexpr const char* validate = "qkov.validate/1";      ///< qkov validate --json (report/validation.json)
inline constexpr const char* reproduce = "qkov.reproduce/1";    ///< qkov reproduce's experiments.json

} // namespace qkov::app::schemas
