// An untrusted JSON text (a scan document, a shard) parsed with the limits every reader of one
// applies: nested at most `deepest` levels (measured before any tree is built: a million '[' would
// otherwise build a million nested values), valid JSON, and no key twice in one object (readers
// disagree on which of the two counts). The problem comes back in words for the caller's error.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <variant>

#include <nlohmann/json.hpp>

#include "qkov/io/json_depth.hpp"
#include "qkov/io/json_repeated_key.hpp"

namespace qkov::io {

/// The tree of `text`, or what is wrong with it.
inline std::variant<nlohmann::json, std::string> parse_untrusted_json(std::string_view text, std::size_t deepest)
{
    if (json_nesting_depth(text) > deepest) return "JSON nests deeper than " + std::to_string(deepest) + " levels";
    nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_discarded()) return std::string("not valid JSON");
    if (const auto dup = first_repeated_key(text))
        return "the key \"" + dup->key + "\" appears twice in one object (JSON readers disagree on which one counts)";
    return j;
}

} // namespace qkov::io
