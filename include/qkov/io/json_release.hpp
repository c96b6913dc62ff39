// Releasing a JSON tree without allocating, for the unwinding of a std::bad_alloc.
//
// nlohmann::json's destructor (json_value::destroy) flattens a non-empty array or object into a
// std::vector it allocates, so that a deep tree does not overflow the call stack. When a bad_alloc
// unwinds through a tree, that allocation can fail too, and a destructor is noexcept: the process
// ends in std::terminate (SIGABRT) instead of the out-of-memory message. release_json_tree empties
// a tree from its leaves up instead, recursing once per level: the trees qkov reads from untrusted
// text nest at most the depth parse_untrusted_json allows (64), and vector::pop_back and
// map::erase free without allocating; an empty array or object is destroyed without allocating
// (destroy reserves 0 elements, which allocates nothing).
#pragma once

#include <iterator>

#include <nlohmann/json.hpp>

namespace qkov::io {

/// Empties `j` (an array or object) and everything below it without allocating.
inline void release_json_tree(nlohmann::json& j) noexcept
{
    if (j.is_array()) {
        auto& values = j.get_ref<nlohmann::json::array_t&>();
        while (!values.empty()) {
            release_json_tree(values.back());
            values.pop_back();
        }
    } else if (j.is_object()) {
        auto& members = j.get_ref<nlohmann::json::object_t&>();
        while (!members.empty()) {
            const auto last = std::prev(members.end());
            release_json_tree(last->second);
            members.erase(last);
        }
    }
}

/// Releases a tree with release_json_tree when the scope ends, by return or by exception. Not for
/// a tree the function returns: that one is released by whoever receives it.
class json_tree_release {
public:
    explicit json_tree_release(nlohmann::json& tree) noexcept : tree_(tree) {}
    json_tree_release(const json_tree_release&) = delete;
    json_tree_release& operator=(const json_tree_release&) = delete;
    ~json_tree_release() { release_json_tree(tree_); }

private:
    nlohmann::json& tree_;
};

} // namespace qkov::io
