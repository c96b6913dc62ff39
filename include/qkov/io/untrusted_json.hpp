// An untrusted JSON text (a scan document, a shard) parsed with the limits every reader of one
// applies: nested at most `deepest` levels (measured before any tree is built: a million '[' would
// otherwise build a million nested values), valid JSON, and no key twice in one object (readers
// disagree on which of the two counts). The problem comes back in words for the caller's error.
//
// The tree is built by nlohmann's own DOM builder through sax_parse into a tree this function holds,
// so that a std::bad_alloc while building leaves a tree it can release without allocating
// (json_release.hpp) before the exception goes on: json::parse would destroy the half-built tree
// itself, and that destructor's allocation under the same memory pressure ended the process.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>

#include <nlohmann/json.hpp>

#include "qkov/io/json_depth.hpp"
#include "qkov/io/json_release.hpp"
#include "qkov/io/json_repeated_key.hpp"

namespace qkov::io {

/// The memory a scan document's tree takes per byte of its text: measured 1.35 on a document of
/// `qkov scan` (68 MB of text, 92 MB of tree), rounded up. Callers that hold trees compare what they
/// need with io::memory_headroom before they parse; a hostile text can take more per byte (an empty
/// list, 3 bytes of text, is 48 bytes of tree), and a std::bad_alloc then unwinds through
/// release_json_tree below.
inline constexpr std::uint64_t json_tree_bytes_per_text_byte = 2;

/// The tree of `text`, or what is wrong with it.
inline std::variant<nlohmann::json, std::string> parse_untrusted_json(std::string_view text, std::size_t deepest)
{
    if (json_nesting_depth(text) > deepest) return "JSON nests deeper than " + std::to_string(deepest) + " levels";
    nlohmann::json j;
    try {
        // detail::json_sax_dom_parser is the builder json::parse uses (nlohmann 3.x); without
        // exceptions it reports a syntax error as a false result.
        nlohmann::detail::json_sax_dom_parser<nlohmann::json> builder(j, false);
        if (!nlohmann::json::sax_parse(text, &builder) || builder.is_errored()) {
            release_json_tree(j);
            return std::string("not valid JSON");
        }
    } catch (...) {
        release_json_tree(j);
        throw;
    }
    if (const auto dup = first_repeated_key(text)) {
        release_json_tree(j);
        return "the key \"" + dup->key + "\" appears twice in one object (JSON readers disagree on which one counts)";
    }
    return j;
}

} // namespace qkov::io
