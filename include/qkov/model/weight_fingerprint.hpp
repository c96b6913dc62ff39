// Which model a document is of: a few of its stored weights, read the same way from every
// container of one model, so `qkov detect --scan` can tell the scan of this model from the scan of
// another model of the same family and shape (whose certified labels would otherwise be "contradicted
// by behaviour").
//
// The sample is head 0's W_v in the first and the last layer: its first 4 rows, their first 32
// columns (one Q8_0 block of 32 inputs where D >= 32). W_v's rows are never reordered between
// containers (llama.cpp reorders W_q's and W_k's), and a GGUF quantises each block of 32 inputs of a
// row apart. Two containers of one model agree within half a Q8_0 step of that block, the step being
// the block's largest |w| / 127 stored as float16 (at most 127 x 2^-11 of a step more): bf16 and
// fp16 round far less. Trained models of one shape differ by a sizeable share of the row's largest
// weight, so 128 entries all within the bound is a match.
//
// The type and its comparison, standard library only (the documents' readers); reading it from a
// model is model_fingerprint.hpp.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "qkov/io/q8_0_error.hpp"

namespace qkov::model {

struct weight_fingerprint {
    std::vector<std::size_t> layers;  ///< the layers sampled: 0 and the last
    std::size_t rows = 0, columns = 0;
    std::vector<double> values;  ///< per layer, rows x columns of head 0's W_v, row-major
};

inline constexpr std::size_t fingerprint_rows = 4, fingerprint_columns = 32;

/// Where the two fingerprints show different models, in words; nullopt when every entry agrees
/// within the quantisation bound of its row (see the top of the file).
inline std::optional<std::string> fingerprint_difference(const weight_fingerprint& a, const weight_fingerprint& b)
{
    if (a.layers != b.layers || a.rows != b.rows || a.columns != b.columns || a.values.size() != b.values.size() ||
        a.values.size() != a.layers.size() * a.rows * a.columns)
        return std::string("the weight samples have different shapes");
    for (std::size_t row = 0; row * a.columns < a.values.size(); ++row) {
        double largest = 0;
        for (std::size_t k = 0; k < a.columns; ++k) largest = std::max({largest, std::abs(a.values[row * a.columns + k]), std::abs(b.values[row * a.columns + k])});
        const double bound = io::q8_0_error_bound(largest);
        for (std::size_t k = 0; k < a.columns; ++k) {
            const double x = a.values[row * a.columns + k], y = b.values[row * a.columns + k];
            if (!(std::abs(x - y) <= bound))
                return "layer " + std::to_string(a.layers[row / a.rows]) + ", head 0's W_v[" + std::to_string(row % a.rows) + ", " + std::to_string(k) +
                       "] is " + std::to_string(x) + " in one and " + std::to_string(y) + " in the other (the same model's containers agree within " +
                       std::to_string(bound) + ")";
        }
    }
    return std::nullopt;
}

} // namespace qkov::model
