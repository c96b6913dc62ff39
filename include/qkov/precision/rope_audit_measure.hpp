// One implementation of RoPE (an angle provider) measured against the 100-digit reference, and
// the previous-token head scanned in the implementation's arithmetic.
//
// Errors measured, per sampled position p (every position of a bucket if it has at most
// samples_per_bucket, otherwise its two ends and a uniform random sample):
//   angle    |implementation angle - p theta_l| (for a table: atan2(sin, cos) against the
//            reference angle reduced mod 2 pi), relative to |p theta_l|
//   cos/sin  |implementation - reference| over both, relative to |reference| where that is >= 1e-3
//   score    q.k for a query at p and a key at p - 1 (fixed random q, k with entries j / 64, exact
//            in every dtype), rotated in the implementation's dtype, the dot product accumulated in
//            float32 (double for tables), relative to |q| |k|
#pragma once

#include <boost/multiprecision/cpp_bin_float.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "qkov/circuits/positional_heads.hpp"
#include "qkov/circuits/rope.hpp"
#include "qkov/matrix/random_integer_matrix.hpp"
#include "qkov/precision/rope_audit_positions.hpp"
#include "qkov/precision/rope_audit_report.hpp"
#include "qkov/precision/rope_audit_settings.hpp"

namespace qkov::precision {

namespace detail {

using audit_reference_scalar = boost::multiprecision::cpp_bin_float_100;

template <std::size_t Pairs>
struct reference_point {
    std::int64_t position = 0;
    std::array<audit_reference_scalar, Pairs> angle;
    std::array<double, Pairs> cos{}, sin{};
    double score = 0;
};

/// q and k with entries j / 64, |j| <= 64: exact in fp32, bf16 and fp16.
template <std::size_t d>
matrix<double, d, 1> audit_vector(std::uint64_t seed)
{
    auto v = random_integer_matrix<double, d, 1>(seed, -64, 64);
    v *= 1.0 / 64;
    return v;
}

template <class X, class Y, std::size_t d>
matrix<Y, d, 1> convert(const matrix<X, d, 1>& v)
{
    matrix<Y, d, 1> out;
    for (std::size_t i = 0; i < d; ++i) out(i, 0) = Y(static_cast<double>(v(i, 0)));
    return out;
}

/// slot = max(slot, value), where a NaN value (cos of an overflowed angle, ...) counts as infinite.
inline void keep_worst(double& slot, double value) { slot = std::max(slot, std::isnan(value) ? INFINITY : value); }

template <class Provider>
constexpr bool wraps_angles()
{
    if constexpr (requires { Provider::wrapped_angles; })
        return Provider::wrapped_angles;
    else
        return false;
}

/// Errors of one implementation (angle provider) against the reference, and its head scan.
template <rope_layout L, angle_provider Provider>
audit_line measure(std::string label, std::string recipe, const Provider& provider,
                   const std::vector<reference_point<L.rotary_dim / 2>>& reference, const matrix<double, L.d, 1>& q,
                   const matrix<double, L.d, 1>& k, const audit_settings& s, std::int64_t last_query)
{
    using Ref = audit_reference_scalar;
    using X = typename Provider::scalar;
    using Acc = std::conditional_t<std::is_same_v<X, double>, double, float>;  // matmul accumulation
    using R = rope_rotation<X, L>;
    constexpr std::size_t pairs = L.rotary_dim / 2;
    const Ref two_pi = 2 * boost::math::constants::pi<Ref>();

    audit_line line;
    line.label = std::move(label);
    line.recipe = std::move(recipe);
    line.buckets = position_buckets(s.max_position);
    const auto q_x = convert<double, X>(q), k_x = convert<double, X>(k);
    double norms = 0, qq = 0, kk = 0;
    for (std::size_t i = 0; i < L.d; ++i) qq += q(i, 0) * q(i, 0), kk += k(i, 0) * k(i, 0);
    norms = std::sqrt(qq * kk);

    std::size_t b = 0;
    for (const auto& ref : reference) {
        while (ref.position > line.buckets[b].last) ++b;
        bucket_errors& bucket = line.buckets[b];
        ++bucket.positions;
        double worst_cos_sin = 0;
        for (std::size_t l = 0; l < pairs; ++l) {
            Ref difference = Ref(provider.angle(l, ref.position)) - ref.angle[l];
            if constexpr (wraps_angles<Provider>()) difference -= two_pi * round(difference / two_pi);
            const double angle_error = static_cast<double>(abs(difference));
            keep_worst(bucket.angle_abs, angle_error);
            if (ref.position != 0) keep_worst(bucket.angle_rel, angle_error / static_cast<double>(abs(ref.angle[l])));

            const auto [c, s_] = provider.cos_sin(l, ref.position);
            const double values[2] = {static_cast<double>(c), static_cast<double>(s_)}, exact[2] = {ref.cos[l], ref.sin[l]};
            for (int i = 0; i < 2; ++i) {
                const double e = std::fabs(values[i] - exact[i]);
                keep_worst(worst_cos_sin, e);
                if (std::fabs(exact[i]) >= 1e-3) keep_worst(bucket.cos_sin_rel, e / std::fabs(exact[i]));
            }
        }
        keep_worst(bucket.cos_sin_abs, worst_cos_sin);
        line.curve.emplace_back(ref.position, worst_cos_sin);

        const auto q_rotated = R::at(provider, ref.position) * q_x;
        const auto k_rotated = R::at(provider, ref.position - 1) * k_x;
        Acc dot(0);
        for (std::size_t i = 0; i < L.d; ++i) dot += static_cast<Acc>(q_rotated(i, 0)) * static_cast<Acc>(k_rotated(i, 0));
        const double score_error = std::fabs(static_cast<double>(dot) - ref.score);
        keep_worst(bucket.score_abs, score_error);
        keep_worst(bucket.score_rel, score_error / norms);
    }

    // The previous-token head in X: at query position n + 1 the key at n must score strictly
    // highest among keys n - window .. n + 1 (causal attention includes the query itself).
    const auto head = previous_token_head<L, 1>(provider, X(s.alpha));
    const std::size_t ring = static_cast<std::size_t>(s.window) + 2;
    std::vector<std::array<Acc, L.d>> keys(ring);
    auto store_key = [&](std::int64_t m, const matrix<X, L.d, 1>& key) {
        auto& slot = keys[static_cast<std::size_t>(m) % ring];
        for (std::size_t i = 0; i < L.d; ++i) slot[i] = static_cast<Acc>(key(i, 0));
    };
    store_key(0, R::at(provider, std::int64_t{0}) * head.w_k);
    for (std::int64_t n = 0; n + 1 <= last_query; ++n) {
        const R rotation = R::at(provider, n + 1);
        store_key(n + 1, rotation * head.w_k);
        const auto query = rotation * head.w_q;
        std::array<Acc, L.d> qa;
        for (std::size_t i = 0; i < L.d; ++i) qa[i] = static_cast<Acc>(query(i, 0));
        auto score = [&](std::int64_t m) {
            const auto& key = keys[static_cast<std::size_t>(m) % ring];
            Acc sum(0);
            for (std::size_t i = 0; i < L.d; ++i) sum += qa[i] * key[i];
            return sum;
        };
        const Acc previous = score(n);
        bool wins = !std::isnan(static_cast<double>(previous));
        for (std::int64_t m = std::max<std::int64_t>(0, n - s.window); wins && m <= n + 1; ++m)
            if (m != n && !(score(m) < previous)) wins = false;
        line.scanned_to = n + 1;
        if (!wins) {
            line.breakdown_query = n + 1;
            break;
        }
    }
    return line;
}

} // namespace detail

} // namespace qkov::precision
