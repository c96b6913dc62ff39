// Words joined into one line of a table or a report ("a, b, c"): the one place every report
// lists names, labels or behaviours.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace qkov::report {

inline std::string joined(const std::vector<std::string>& words, std::string_view separator = ", ")
{
    std::string s;
    for (std::size_t i = 0; i < words.size(); ++i) {
        if (i != 0) s += separator;
        s += words[i];
    }
    return s;
}

} // namespace qkov::report
