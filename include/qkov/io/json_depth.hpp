// The nesting depth of a JSON text, measured before parsing it.
//
// A hostile header of a million '[' would make any parser build a million nested values; a model
// header never nests deeper than a few levels, so the readers measure first and refuse early.
// Brackets inside strings (with escapes) do not count.
#pragma once

#include <cstddef>
#include <string_view>

namespace qkov::io {

inline std::size_t json_nesting_depth(std::string_view text)
{
    std::size_t depth = 0, deepest = 0;
    bool in_string = false, escaped = false;
    for (const char c : text) {
        if (in_string) {
            if (escaped) escaped = false;
            else if (c == '\\') escaped = true;
            else if (c == '"') in_string = false;
            continue;
        }
        if (c == '"') in_string = true;
        else if (c == '[' || c == '{') {
            if (++depth > deepest) deepest = depth;
        } else if ((c == ']' || c == '}') && depth > 0) --depth;
    }
    return deepest;
}

} // namespace qkov::io
