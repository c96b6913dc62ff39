// One monomial of a trig_poly (trig_polynomial.hpp): real symbols with natural powers times
// phases w_l^L with integer linear exponents, packed into a few scalars, with its product,
// conjugate and a strict total order consistent with ==.
#pragma once

#include <cstddef>
#include <cstdint>

#include "qkov/scalar/errors.hpp"
#include "qkov/scalar/linear_form.hpp"

namespace qkov {

// Plain arrays and explicit counts: the monomial product is the innermost loop of every
// proof, and g++'s constant evaluator charges a function call per std::array access.
template <std::size_t MaxReals, std::size_t MaxPhases, std::size_t Symbols>
struct trig_monomial {
    using form = linear_form<Symbols>;

    static_assert(Symbols <= 2, "qkov: a packed phase holds a constant and two position coefficients");

    // Ordering compares the two keys first, then the fields: any total order consistent
    // with == gives a canonical form, and (keys, fields) is one. The keys are additive
    // fingerprints - real part: sum of power * hash(id); phase part: sum of exponent
    // coefficient * hash(angle, slot) - so a product's keys are the sums of its factors'
    // keys (powers and exponents add; a cancelled phase contributes 0) and cost O(1).
    // Fields are packed into few scalars: g++'s constant evaluator copies and compares
    // aggregates field by field, and terms are copied and compared constantly.
    std::uint64_t real_key = 0;
    std::uint64_t phase_key = 0;
    std::uint8_t reals = 0;
    std::uint8_t phases = 0;
    std::uint32_t real[MaxReals]{};  // (id << 16) | power, sorted by id; unused slots 0
    // Phase k: angle in bits 48-63, exponent coefficient c (c = 0 the constant, c = 1.. the
    // positions) as a 16-bit two's complement number in bits 16c .. 16c + 15. Sorted by angle;
    // exponents never zero; unused slots 0.
    std::uint64_t phase[MaxPhases]{};

    // Written out over the packed scalars: the defaulted comparisons go through a chain of
    // std::strong_ordering calls per field in constant evaluation.
    friend constexpr bool operator==(const trig_monomial& a, const trig_monomial& b)
    {
        if (a.real_key != b.real_key || a.phase_key != b.phase_key || a.reals != b.reals || a.phases != b.phases)
            return false;
        for (std::size_t k = 0; k < a.reals; ++k)
            if (a.real[k] != b.real[k]) return false;
        for (std::size_t k = 0; k < a.phases; ++k)
            if (a.phase[k] != b.phase[k]) return false;
        return true;
    }
    /// A strict total order consistent with ==: keys, then counts, then the packed fields.
    friend constexpr bool operator<(const trig_monomial& a, const trig_monomial& b)
    {
        if (a.real_key != b.real_key) return a.real_key < b.real_key;
        if (a.phase_key != b.phase_key) return a.phase_key < b.phase_key;
        if (a.reals != b.reals) return a.reals < b.reals;
        if (a.phases != b.phases) return a.phases < b.phases;
        for (std::size_t k = 0; k < a.reals; ++k)
            if (a.real[k] != b.real[k]) return a.real[k] < b.real[k];
        for (std::size_t k = 0; k < a.phases; ++k)
            if (a.phase[k] != b.phase[k]) return a.phase[k] < b.phase[k];
        return false;
    }

    static constexpr std::uint64_t pack(std::uint16_t angle, const form& exponent)
    {
        std::uint64_t word = std::uint64_t{angle} << 48;
        for (std::size_t c = 0; c <= Symbols; ++c) {
            const std::int32_t v = exponent.coefficient_raw(c);
            if (v < -32768 || v > 32767) integer_overflow_detected();  // exponents are small in practice
            word |= std::uint64_t{static_cast<std::uint16_t>(v)} << (16 * c);
        }
        return word;
    }
    static constexpr std::int32_t field(std::uint64_t word, std::size_t c)
    {
        return static_cast<std::int16_t>(static_cast<std::uint16_t>(word >> (16 * c)));
    }
    /// The exponent of phase k as a linear form, and its angle.
    [[nodiscard]] constexpr form exponent(std::size_t k) const
    {
        form f(field(phase[k], 0));
        for (std::size_t c = 1; c <= Symbols; ++c) f = f + field(phase[k], c) * form::symbol(c - 1);
        return f;
    }
    [[nodiscard]] constexpr std::uint16_t angle(std::size_t k) const { return static_cast<std::uint16_t>(phase[k] >> 48); }

    /// The packed exponent of two phases of the same angle added (0 if they cancel).
    static constexpr std::uint64_t add_exponents(std::uint64_t a, std::uint64_t b, std::int32_t sign_b)
    {
        std::uint64_t word = a & 0xFFFF000000000000ULL;
        bool zero = true;
        for (std::size_t c = 0; c <= Symbols; ++c) {
            const std::int32_t v = field(a, c) + sign_b * field(b, c);
            if (v < -32768 || v > 32767) integer_overflow_detected();
            zero = zero && v == 0;
            word |= std::uint64_t{static_cast<std::uint16_t>(v)} << (16 * c);
        }
        return zero ? 0 : word;
    }

    friend constexpr trig_monomial operator*(const trig_monomial& a, const trig_monomial& b)
    {
        trig_monomial r;
        // Merge the sorted real factors, adding powers of equal symbols.
        std::size_t i = 0, j = 0, k = 0;
        while (i < a.reals || j < b.reals) {
            if (k == MaxReals) symbolic_capacity_exceeded();
            const std::uint32_t id_a = i < a.reals ? a.real[i] >> 16 : 0x10000;
            const std::uint32_t id_b = j < b.reals ? b.real[j] >> 16 : 0x10000;
            if (id_a < id_b) {
                r.real[k++] = a.real[i++];
            } else if (id_b < id_a) {
                r.real[k++] = b.real[j++];
            } else {
                const std::uint32_t power = (a.real[i++] & 0xFFFF) + (b.real[j++] & 0xFFFF);
                if (power > 0xFFFF) integer_overflow_detected();
                r.real[k++] = (id_a << 16) | power;
            }
        }
        r.reals = static_cast<std::uint8_t>(k);
        // Merge the sorted phases, adding exponents of equal angles; w^0 = 1 is dropped.
        i = j = k = 0;
        while (i < a.phases || j < b.phases) {
            const std::uint64_t angle_a = i < a.phases ? a.phase[i] >> 48 : 0x10000;
            const std::uint64_t angle_b = j < b.phases ? b.phase[j] >> 48 : 0x10000;
            std::uint64_t word = 0;
            if (angle_a < angle_b)
                word = a.phase[i++];
            else if (angle_b < angle_a)
                word = b.phase[j++];
            else
                word = add_exponents(a.phase[i++], b.phase[j++], 1);
            if (word == 0) continue;
            if (k == MaxPhases) symbolic_capacity_exceeded();
            r.phase[k++] = word;
        }
        r.phases = static_cast<std::uint8_t>(k);
        r.real_key = a.real_key + b.real_key;  // unsigned: wraps, by design
        r.phase_key = a.phase_key + b.phase_key;
        return r;
    }

    static constexpr std::uint64_t real_hash(std::uint16_t id) { return (std::uint64_t{id} + 1) * 0x9E3779B97F4A7C15ULL; }
    static constexpr std::uint64_t phase_hash(std::uint16_t angle, const form& exponent)
    {
        std::uint64_t h = 0;
        for (std::size_t c = 0; c <= Symbols; ++c)
            h += static_cast<std::uint64_t>(static_cast<std::int64_t>(exponent.coefficient_raw(c))) *
                 ((std::uint64_t{angle} * (Symbols + 1) + c + 1) * 0xC2B2AE3D27D4EB4FULL);
        return h;
    }

    /// The complex conjugate: w^L -> w^-L (theta real, L integer-valued); real symbols stay.
    [[nodiscard]] constexpr trig_monomial conj() const
    {
        trig_monomial r = *this;
        for (std::size_t k = 0; k < phases; ++k) r.phase[k] = add_exponents(phase[k] & 0xFFFF000000000000ULL, phase[k], -1);
        r.phase_key = 0 - phase_key;  // the phase key is linear in the exponents
        return r;
    }
};

} // namespace qkov
