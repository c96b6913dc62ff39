// The first key that one object of a JSON text holds twice. nlohmann's DOM keeps the last of two
// values silently (a config whose second "num_hidden_layers" wins, an index that places one tensor
// in two shards, a scan whose second "heads" list is empty), and JSON readers disagree on which one
// counts, so every reader of untrusted JSON refuses a repeated key by name.
#pragma once

#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace qkov::io {

/// A key that one object of a JSON text holds twice, and the depth of that object (1: the top level).
struct repeated_json_key {
    std::string key;
    std::size_t depth = 0;
};

/// The first key repeated within one object, at any depth, or nullopt: a SAX pass, after which the
/// text is parsed again for the DOM.
inline std::optional<repeated_json_key> first_repeated_key(std::string_view text)
{
    struct collector : nlohmann::json_sax<nlohmann::json> {
        std::vector<std::set<std::string>> objects;  ///< the keys seen so far in each open object
        std::optional<repeated_json_key> repeated;
        bool null() override { return true; }
        bool boolean(bool) override { return true; }
        bool number_integer(number_integer_t) override { return true; }
        bool number_unsigned(number_unsigned_t) override { return true; }
        bool number_float(number_float_t, const string_t&) override { return true; }
        bool string(string_t&) override { return true; }
        bool binary(binary_t&) override { return true; }
        bool start_object(std::size_t) override
        {
            objects.emplace_back();
            return true;
        }
        bool key(string_t& k) override
        {
            if (!objects.back().insert(k).second) {
                repeated = repeated_json_key{k, objects.size()};
                return false;  // one is enough: stop parsing
            }
            return true;
        }
        bool end_object() override
        {
            objects.pop_back();
            return true;
        }
        bool start_array(std::size_t) override { return true; }
        bool end_array() override { return true; }
        bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }
    } sax;
    nlohmann::json::sax_parse(text, &sax, nlohmann::json::input_format_t::json, false);
    return sax.repeated;
}

} // namespace qkov::io
