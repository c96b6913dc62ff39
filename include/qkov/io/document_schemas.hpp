// The name and version every JSON document of qkov carries in its "schema" key, in one place:
// "qkov.<name>/<version>" is specified by docs/schemas/<name>.schema.json, and
// tests/cli/check_json_schemas.py picks the schema by it. A change that breaks a reader of the
// document raises the version here and in that file's "const".
#pragma once

namespace qkov::schemas {

inline constexpr const char* scan = "qkov.scan/4";                  ///< qkov scan --json (scan/scan_json.hpp)
inline constexpr const char* detect = "qkov.detect/2";              ///< qkov detect --json (detect/detection_json.hpp)
inline constexpr const char* shard_inputs = "qkov.shard_inputs/1";  ///< qkov scan --prepare-shards' manifest (scan/shard_inputs.hpp)
inline constexpr const char* inspect = "qkov.inspect/2";            ///< qkov inspect --json
inline constexpr const char* audit_rope = "qkov.audit-rope/1";      ///< qkov audit-rope --json
inline constexpr const char* validate = "qkov.validate/1";          ///< qkov validate --json (report/validation.json)
inline constexpr const char* reproduce = "qkov.reproduce/1";        ///< qkov reproduce's experiments.json

} // namespace qkov::schemas
