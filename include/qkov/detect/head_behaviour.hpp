// What the detection reports of one head (head_detection.hpp measures it): each score's mean and
// spread over the samples, the copying counts, the behaviours the head shows and those its samples leave undecided. A result type
// only, so what reads or writes it (the JSON, the figures, the comparison) needs none of the
// forward pass.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "qkov/forward/head_scores.hpp"

namespace qkov::detect {

/// Mean and spread of one score over the samples; spread is the sample standard deviation
/// (divisor samples - 1), 0 for a single sample.
struct score_statistics {
    double mean = 0, spread = 0;
};

/// TransformerLens' three scores, in the order the score maps (detection_figures.hpp) list them.
inline constexpr const char* behaviour_names[] = {"previous_token", "duplicate_token", "induction"};

/// One head's scores over the samples (forward::score_set's fields) and the behaviours it shows.
struct head_behaviour : forward::score_set<score_statistics> {
    std::size_t layer = 0, head = 0;
    std::optional<forward::copy_counts> copying;                             ///< pooled over the samples; unset when not measured
    std::vector<std::string> behaviours;  ///< the behaviour_rules() this head meets, in their order
    std::vector<std::string> undecided;   ///< those whose 95 % interval holds the threshold: neither shown nor absent

    [[nodiscard]] const score_statistics& score(std::size_t k) const
    {
        return k == 0 ? previous_token : k == 1 ? duplicate_token : induction;
    }
    [[nodiscard]] const score_statistics& shift(int s) const { return by_shift.at(forward::shift_index(s)); }
    [[nodiscard]] bool shows(const std::string& behaviour) const
    {
        for (const auto& b : behaviours)
            if (b == behaviour) return true;
        return false;
    }
    [[nodiscard]] bool undecided_on(const std::string& behaviour) const
    {
        for (const auto& b : undecided)
            if (b == behaviour) return true;
        return false;
    }
};

} // namespace qkov::detect
