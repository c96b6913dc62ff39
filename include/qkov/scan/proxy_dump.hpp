// The inputs the scan's certificates are conditional on, written so that another program can check
// every certified bound (`qkov scan --dump-proxy FILE`, docs/SCAN-LABELS.md): one safetensors file
// of float64 tensors,
//   layer.<l>.proxy     (N + 1) x D  the layer's normed input on the proxy sequence (row 0: BOS)
//   layer.<l>.mean      D            mu_l, the mean normed input the mean field reads
//   head.<l>.<h>.widths 2 x K        the widths each score may move by (row 0 lower, row 1 upper;
//                                    mean_field_evidence.hpp's certificate_widths), when the head's
//                                    certificates allowed any
// With the model's own weights (read from its file) these are everything a bound depends on. Each
// head's mean field names its inputs by a SHA-256 (certificate_inputs_sha256): of the bytes of its
// layer's proxy rows, then mu_l, then its widths, as stored here (float64, little-endian,
// row-major), so the dump and the JSON can be matched head by head.
#pragma once

#include <cstring>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "qkov/io/safetensors_writer.hpp"
#include "qkov/io/sha256.hpp"
#include "qkov/scan/mean_field_evidence.hpp"
#include "qkov/scan/scan_result.hpp"

namespace qkov::scan {

/// The widths as the dump stores them: lower ends, then upper ends.
inline std::vector<double> widths_values(const certificate_widths& w)
{
    std::vector<double> v = w.lower;
    v.insert(v.end(), w.upper.begin(), w.upper.end());
    return v;
}

/// The SHA-256 a head's certificates name their inputs by (above).
inline std::string certificate_inputs_sha256(const model::matrix& proxy, const model::vector& mean, const std::optional<certificate_widths>& widths)
{
    static_assert(std::endian::native == std::endian::little, "qkov: the checksum is of little-endian doubles");
    io::sha256 h;
    const model::matrix rows = proxy;  // row-major and contiguous, as stored
    h.update(rows.data(), rows.size() * sizeof(double));
    const model::vector mu = mean;
    h.update(mu.data(), mu.size() * sizeof(double));
    if (widths) {
        const auto v = widths_values(*widths);
        h.update(v.data(), v.size() * sizeof(double));
    }
    return h.hex();
}

/// The dump's tensors for a scan that kept its proxy inputs (scan_options::keep_proxy_inputs).
inline std::vector<io::tensor_to_write> proxy_dump_tensors(const scan_result& r)
{
    if (r.proxy_inputs.empty())
        throw std::invalid_argument("qkov: the scan kept no proxy inputs to dump (no layer had one: " +
                                    (r.proxy_missing.empty() ? std::string("the scan did not keep them") : r.proxy_missing) + ")");
    std::vector<io::tensor_to_write> out;
    const auto copy = [](const auto& x) { return std::vector<double>(x.begin(), x.end()); };
    for (const auto& p : r.proxy_inputs) {
        const std::string stem = "layer." + std::to_string(p.layer);
        out.push_back({stem + ".proxy", {p.normed.shape()[0], p.normed.shape()[1]}, {}, copy(p.normed)});
        out.push_back({stem + ".mean", {p.mean.size()}, {}, copy(p.mean)});
    }
    for (const auto& h : r.heads)
        if (h.mean_field && h.mean_field->widths) {
            const auto v = widths_values(*h.mean_field->widths);
            out.push_back({"head." + std::to_string(h.layer) + "." + std::to_string(h.head) + ".widths", {2, v.size() / 2}, {}, v});
        }
    return out;
}

inline void write_proxy_dump(const std::filesystem::path& path, const scan_result& r) { io::write_safetensors(path, proxy_dump_tensors(r)); }

} // namespace qkov::scan
