// How long a scan of layers A..B has left, from the time its layers took so far.
//
// Layer l costs its heads (about the same in every layer) and its composition with the l layers
// before it (one product per layer pair), so the pairs grow as L^2 and a late layer takes longer
// than an early one: the mean time per layer would promise too little. The heads' time and the
// layer pairs' time are measured apart, and each mean is projected over what is left: the
// remaining layers for the heads, the remaining layer pairs (sum of l over them) for composition.
#pragma once

#include <cstddef>
#include <optional>

namespace qkov::scan {

/// What one scanned layer took (scan_model.hpp hands it to the progress callback).
struct layer_timing {
    std::size_t layer = 0;
    double heads_seconds = 0;        ///< its heads: metrics, structure, labels, composition factors (with the two below)
    double composition_seconds = 0;  ///< its pairs with every earlier layer (with the one below)
    double pass_seconds = 0;         ///< of heads_seconds: the forward pass reaching the layer (the labels' inputs)
    double copying_seconds = 0;      ///< of heads_seconds: the per-token copying of its heads (one pass over the vocabulary)
    double t3_seconds = 0;           ///< of composition_seconds: T3's singular values, summed over the workers (CPU time)
    double circuit_seconds = 0;      ///< of heads_seconds: the circuit search of its heads (circuit_search.hpp)
};

class scan_time_estimate {
public:
    /// A scan of layers first..last (inclusive).
    scan_time_estimate(std::size_t first, std::size_t last) : next_(first), last_(last) {}

    /// Layers must be recorded in order.
    void record(const layer_timing& t)
    {
        heads_seconds_ += t.heads_seconds, composition_seconds_ += t.composition_seconds;
        ++layers_done_;
        layer_pairs_done_ += t.layer;  // layer l composes with layers 0..l-1
        next_ = t.layer + 1;
    }

    /// Seconds left; nullopt while a part that is left has not been timed yet (the pairs, after
    /// a scan's layer 0 alone).
    [[nodiscard]] std::optional<double> seconds_left() const
    {
        if (next_ > last_) return 0.0;
        const std::size_t layers_left = last_ + 1 - next_;
        // The pairs of layers next..last: sum of l over them.
        const std::size_t pairs_left = (next_ + last_) * layers_left / 2;
        if (layers_done_ == 0 || (pairs_left > 0 && layer_pairs_done_ == 0)) return std::nullopt;
        const double per_layer = heads_seconds_ / static_cast<double>(layers_done_);
        const double per_pair = layer_pairs_done_ == 0 ? 0.0 : composition_seconds_ / static_cast<double>(layer_pairs_done_);
        return per_layer * static_cast<double>(layers_left) + per_pair * static_cast<double>(pairs_left);
    }

private:
    std::size_t next_, last_;
    std::size_t layers_done_ = 0, layer_pairs_done_ = 0;
    double heads_seconds_ = 0, composition_seconds_ = 0;
};

} // namespace qkov::scan
