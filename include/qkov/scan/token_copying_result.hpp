// What the scan reports of a head's per-token copying (computed by token_copying.hpp, which says
// what each number means): a result type only, so what reads or writes it (labels, JSON, reports)
// needs none of the computation.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "qkov/scan/product_precision.hpp"

namespace qkov::scan {

struct token_copying {
    std::size_t tokens = 0, vocabulary = 0;  ///< tokens read (all of V, or a strided sample)
    double top1_share = 0, top5_share = 0, bottom10_share = 0;
    std::pair<double, double> top1_interval{0, 1}, bottom10_interval{0, 1};  ///< Wilson 95 % (exact share when every token is read)
    double median_margin = 0;  ///< (row_t[t] - max_{j != t} row_t[j]) / std(row_t), median over the tokens
    std::vector<bool> top1;    ///< per token read: the top-1 of its own row (for the union over a layer's heads)
    product_precision precision = product_precision::float64;  ///< of the products (token_copying.hpp)
    std::size_t recomputed = 0;  ///< float32: tokens read whose row was recomputed in float64 (a decision inside the rounding bound)
};

} // namespace qkov::scan
