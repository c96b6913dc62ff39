// An untrusted JSON document read from a stream, keeping only the parts a reader asks for: the rest
// is checked as it streams past and never becomes a tree, so the memory is that of the kept parts
// whatever the document's size (a scan of Llama-3-8B's shape is about 2.4 GB of text, nearly all of
// it composition pairs a comparison with behaviour never reads).
//
// The limits are parse_untrusted_json's (untrusted_json.hpp), applied while reading instead of on a
// text held whole: at most `deepest` levels of nesting (the outermost container is level 1), valid
// JSON, no key twice in one object (in the dropped parts too: the document is refused as a whole or
// read as a whole), and the same words for each. Which parts are kept is a key filter: a key it
// refuses is dropped with its value. Only kept events reach nlohmann's DOM builder (the one
// parse_untrusted_json uses), so the time is linear in the text and a dropped part costs no memory;
// the tree is built into a json this function holds, released without allocating
// (json_release.hpp) if the build fails.
#pragma once

#include <cstddef>
#include <functional>
#include <istream>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "qkov/io/json_release.hpp"

namespace qkov::io {

/// Whether to keep `key` of an object `depth` levels down (1: a key of the outermost object), inside
/// the outermost object's key `top` (empty at depth 1).
using json_key_filter = std::function<bool(std::size_t depth, const std::string& key, const std::string& top)>;

namespace detail {

/// The checks of an untrusted document on every event, and the DOM builder on the kept ones.
class checked_kept_builder {
public:
    using json = nlohmann::json;

    checked_kept_builder(json& result, const json_key_filter& keep, std::size_t deepest) : builder_(result, false), keep_(keep), deepest_(deepest) {}

    /// What made the parse stop, in parse_untrusted_json's words (empty: a syntax error, or none).
    [[nodiscard]] const std::string& problem() const { return problem_; }
    [[nodiscard]] bool is_errored() const { return builder_.is_errored(); }

    bool null() { return scalar([&] { return builder_.null(); }); }
    bool boolean(bool v) { return scalar([&] { return builder_.boolean(v); }); }
    bool number_integer(json::number_integer_t v) { return scalar([&] { return builder_.number_integer(v); }); }
    bool number_unsigned(json::number_unsigned_t v) { return scalar([&] { return builder_.number_unsigned(v); }); }
    bool number_float(json::number_float_t v, const json::string_t& s) { return scalar([&] { return builder_.number_float(v, s); }); }
    bool string(json::string_t& v) { return scalar([&] { return builder_.string(v); }); }
    bool binary(json::binary_t& v) { return scalar([&] { return builder_.binary(v); }); }
    bool start_object(std::size_t n)
    {
        if (!open(true)) return false;
        return skipping() || builder_.start_object(n);
    }
    bool key(json::string_t& k)
    {
        if (!keys_.back().insert(k).second) {
            problem_ = "the key \"" + k + "\" appears twice in one object (JSON readers disagree on which one counts)";
            return false;
        }
        if (open_.size() == 1) top_ = k;
        if (skipping()) return true;
        if (!keep_(open_.size(), k, open_.size() == 1 ? std::string() : top_)) {
            drop_next_ = true;
            return true;
        }
        return builder_.key(k);
    }
    bool end_object() { return close([&] { return builder_.end_object(); }); }
    bool start_array(std::size_t n)
    {
        if (!open(false)) return false;
        return skipping() || builder_.start_array(n);
    }
    bool end_array() { return close([&] { return builder_.end_array(); }); }
    bool parse_error(std::size_t position, const std::string& token, const nlohmann::detail::exception& e)
    {
        return builder_.parse_error(position, token, e);
    }

private:
    [[nodiscard]] bool skipping() const { return skip_from_ != 0; }

    /// A value: forwarded unless it is dropped (the value of a refused key, or inside a dropped part).
    template <class Forward>
    bool scalar(Forward forward)
    {
        if (drop_next_) {
            drop_next_ = false;
            return true;
        }
        return skipping() || forward();
    }
    /// A container opens: the depth limit, and a dropped part starts here when its key was refused.
    bool open(bool object)
    {
        if (open_.size() + 1 > deepest_) {
            problem_ = "JSON nests deeper than " + std::to_string(deepest_) + " levels";
            return false;
        }
        open_.push_back(object);
        if (object) keys_.emplace_back();
        if (drop_next_) drop_next_ = false, skip_from_ = open_.size();
        return true;
    }
    template <class Forward>
    bool close(Forward forward)
    {
        const bool was_skipping = skipping();
        if (skip_from_ == open_.size()) skip_from_ = 0;  // the dropped part ends with this container
        if (open_.back()) keys_.pop_back();
        open_.pop_back();
        return was_skipping || forward();
    }

    nlohmann::detail::json_sax_dom_parser<json> builder_;
    json_key_filter keep_;
    std::size_t deepest_;
    std::vector<bool> open_;                   ///< each open container (true: an object), innermost last
    std::vector<std::set<std::string>> keys_;  ///< the keys of each open object, innermost last
    std::string top_;                          ///< the outermost object's current key
    bool drop_next_ = false;                   ///< the next value belongs to a refused key
    std::size_t skip_from_ = 0;                ///< the level where a dropped container opened (0: none)
    std::string problem_;
};

} // namespace detail

/// The kept parts of the document `in` holds, or what is wrong with it.
inline std::variant<nlohmann::json, std::string> parse_untrusted_json_kept(std::istream& in, std::size_t deepest, const json_key_filter& keep)
{
    nlohmann::json j;
    try {
        detail::checked_kept_builder builder(j, keep, deepest);
        const bool parsed = nlohmann::json::sax_parse(in, &builder);
        if (!parsed || builder.is_errored()) {
            release_json_tree(j);
            return builder.problem().empty() ? std::string("not valid JSON") : builder.problem();
        }
    } catch (...) {
        release_json_tree(j);
        throw;
    }
    return j;
}

} // namespace qkov::io
