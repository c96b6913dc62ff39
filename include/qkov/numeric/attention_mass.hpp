// How much of a causal row's attention falls on one chosen key, in log space.
//
// For the previous-token head at alpha = 100 the weight off the previous token is about 1e-47,
// below float32's smallest normal number (1.2e-38): as a weight it underflows to 0. Its
// logarithm does not: log mass_off = lse(scores off the key) - lse(all visible scores), each
// log-sum-exp shifted by its own maximum, so both terms stay in range in float and double.
#pragma once

#include <cmath>
#include <cstddef>
#include <functional>
#include <vector>

#include "qkov/numeric/softmax.hpp"

namespace qkov::numeric {

struct log_mass {
    std::size_t query;  ///< row of the score matrix
    std::size_t key;    ///< the chosen key
    double on;          ///< log of the weight on the key
    double off;         ///< log of the weight on every other visible key (-inf if there is none)
};

/// For each query row i with a chosen key target(i) <= i (rows where target returns a value > i
/// are skipped): log of the causal softmax weight on that key and on all the others.
template <class T>
std::vector<log_mass> causal_log_masses(const tensor2<T>& scores, const std::function<std::size_t(std::size_t)>& target)
{
    require_shape(scores.shape()[0] == scores.shape()[1], "the causal score matrix", scores, "it must be square");
    const std::size_t n = scores.shape()[0];
    std::vector<log_mass> masses;
    for (std::size_t i = 0; i < n; ++i) {
        const std::size_t key = target(i);
        if (key > i) continue;
        const T* row = scores.data() + i * n;
        const T all = log_sum_exp(row, 0, i + 1);
        masses.push_back({i, key, static_cast<double>(row[key] - all), static_cast<double>(log_sum_exp(row, 0, i + 1, key) - all)});
    }
    return masses;
}

/// The previous-token case: row i (i >= 1) against key i - 1.
template <class T>
std::vector<log_mass> previous_token_log_masses(const tensor2<T>& scores)
{
    return causal_log_masses(scores, [](std::size_t i) { return i == 0 ? std::size_t(1) : i - 1; });
}

} // namespace qkov::numeric
