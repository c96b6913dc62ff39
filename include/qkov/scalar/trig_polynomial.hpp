// trig_poly, the polynomial: a canonical, sorted list of terms (coefficient times monomial) and
// its ring operations. The representation and why the canonical form is sound and complete are
// in trig_poly.hpp; the monomial, the shared term list and the sort have their own headers.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "qkov/scalar/dyadic_gaussian.hpp"
#include "qkov/scalar/errors.hpp"
#include "qkov/scalar/gaussian.hpp"
#include "qkov/scalar/linear_form.hpp"
#include "qkov/scalar/native_integer.hpp"
#include "qkov/scalar/trig_monomial.hpp"
#include "qkov/scalar/trig_term_buffer.hpp"
#include "qkov/scalar/trig_term_sort.hpp"

namespace qkov {

/// The two constants trig_poly needs from its coefficient ring: 1/2 and i/2.
template <class C>
struct trig_coefficient;

template <>
struct trig_coefficient<dyadic_gaussian> {
    static constexpr dyadic_gaussian half() { return dyadic_gaussian(1, 0, 1); }
    static constexpr dyadic_gaussian i_half() { return dyadic_gaussian(0, 1, 1); }
};

template <class F>
struct trig_coefficient<gaussian<F>> {
    static constexpr gaussian<F> half() { return gaussian<F>(F(1) / F(2)); }
    static constexpr gaussian<F> i_half() { return gaussian<F>(F(0), F(1) / F(2)); }
};

// Defaults fit the seeds' statements (two positions m, n; up to four real factors and two
// angles per monomial); each extra slot makes every term copy dearer in constant evaluation.
template <class Coefficient = dyadic_gaussian, std::size_t MaxReals = 4, std::size_t MaxPhases = 2,
          std::size_t Symbols = 2>
class trig_poly {
public:
    using coefficient_type = Coefficient;
    using form = linear_form<Symbols>;

    using monomial = trig_monomial<MaxReals, MaxPhases, Symbols>;

    struct term {
        Coefficient coefficient;
        monomial mono;
    };

    constexpr trig_poly() = default;
    constexpr trig_poly(const Coefficient& c)
    {
        if (!(c == Coefficient(0))) *this = single_term(c, monomial{});
    }
    /// An integer constant: the coefficient ring converts it, range-checked (uint64 2^64 - 1 or
    /// an __int128 beyond 64 bits is refused by name, never cast).
    template <native_integer N>
    constexpr trig_poly(N c) : trig_poly(Coefficient(c))
    {
    }
    /// Floating point is refused: trig_poly is exact, and a double would be cut to an integer
    /// (P(0.5) == P(0)). Build a double's exact value with Coefficient::from_double.
    template <std::floating_point F>
    trig_poly(F) = delete;

    /// The real symbol number `id` (alpha, a matrix entry, ...), to the first power. Ids are
    /// 16-bit: an id outside 0 .. 65535 is refused (symbol_id_out_of_range), never wrapped.
    template <native_integer N>
    static constexpr trig_poly variable(N id_in)
    {
        if (!fits_in<std::uint16_t>(id_in)) symbol_id_out_of_range();
        const auto id = static_cast<std::uint16_t>(id_in);
        monomial m;
        m.reals = 1;
        m.real[0] = (std::uint32_t{id} << 16) | 1;
        m.real_key = monomial::real_hash(id);
        return single_term(Coefficient(1), m);
    }

    /// w_angle^L = e^{i L theta_angle}. Angle ids are 16-bit like symbol ids (angle_id_out_of_range).
    template <native_integer N>
    static constexpr trig_poly phase(N angle_in, const form& exponent)
    {
        const std::uint16_t angle = angle_id(angle_in);
        if (exponent.is_zero()) return trig_poly(1);
        monomial m;
        m.phases = 1;
        m.phase[0] = monomial::pack(angle, exponent);
        m.phase_key = monomial::phase_hash(angle, exponent);
        return single_term(Coefficient(1), m);
    }

    /// cos(L theta_angle) = (w^L + w^-L) / 2.
    template <native_integer N>
    static constexpr trig_poly cos(N angle, const form& exponent)
    {
        return two_phases(angle_id(angle), exponent, trig_coefficient<Coefficient>::half(), trig_coefficient<Coefficient>::half());
    }

    /// sin(L theta_angle) = (w^L - w^-L) / (2i) = -i/2 w^L + i/2 w^-L.
    template <native_integer N>
    static constexpr trig_poly sin(N angle, const form& exponent)
    {
        const Coefficient i_half = trig_coefficient<Coefficient>::i_half();
        return two_phases(angle_id(angle), exponent, -i_half, i_half);
    }

    [[nodiscard]] constexpr const term& term_at(std::size_t k) const { return terms_[k]; }
    [[nodiscard]] constexpr std::size_t size() const { return terms_.size(); }
    [[nodiscard]] constexpr bool is_zero() const { return terms_.empty(); }
    /// A single term without symbols or phases: a nonzero constant.
    [[nodiscard]] constexpr bool is_constant() const
    {
        return terms_.size() == 1 && terms_[0].mono.reals == 0 && terms_[0].mono.phases == 0;
    }

    [[nodiscard]] constexpr trig_poly conj() const
    {
        buffer t(terms_.size());
        for (std::size_t k = 0; k < terms_.size(); ++k) t.push({terms_[k].coefficient.conj(), terms_[k].mono.conj()});
        return from_unsorted(std::move(t));
    }
    /// Real and imaginary parts, as functions of real symbols and real angles.
    [[nodiscard]] constexpr trig_poly real() const { return (*this + conj()) * trig_poly(trig_coefficient<Coefficient>::half()); }
    /// (p - conj p) / (2i) = -(i/2) (p - conj p).
    [[nodiscard]] constexpr trig_poly imag() const
    {
        return (conj() - *this) * trig_poly(trig_coefficient<Coefficient>::i_half());
    }

    friend constexpr trig_poly operator+(const trig_poly& a, const trig_poly& b) { return merge(a, b, false); }
    friend constexpr trig_poly operator-(const trig_poly& a, const trig_poly& b) { return merge(a, b, true); }
    constexpr trig_poly operator-() const
    {
        trig_poly r;
        r.terms_ = buffer(terms_.size());
        for (std::size_t k = 0; k < terms_.size(); ++k) r.terms_.push({-terms_[k].coefficient, terms_[k].mono});
        return r;
    }
    constexpr trig_poly operator+() const { return *this; }

    friend constexpr trig_poly operator*(const trig_poly& a, const trig_poly& b)
    {
        if (a.terms_.empty() || b.terms_.empty()) return trig_poly{};
        // A constant factor scales the coefficients and keeps the order: no sort, no merge.
        // (Coefficients form an integral domain, so no product of nonzero ones vanishes.)
        if (b.is_constant()) return scaled(a, b.terms_[0].coefficient);
        if (a.is_constant()) return scaled(b, a.terms_[0].coefficient);
        buffer product(a.terms_.size() * b.terms_.size());
        for (std::size_t i = 0; i < a.terms_.size(); ++i)
            for (std::size_t j = 0; j < b.terms_.size(); ++j)
                product.push({a.terms_[i].coefficient * b.terms_[j].coefficient, a.terms_[i].mono * b.terms_[j].mono});
        return from_unsorted(std::move(product));
    }

    /// sum_k left[k] * right[k] in one pass: all term products into one list, then one sort and
    /// one merge of like terms (instead of a new polynomial per partial sum). The matrix product
    /// uses it for every entry.
    static constexpr trig_poly sum_of_products(const trig_poly* const* left, const trig_poly* const* right, std::size_t count)
    {
        std::size_t total = 0;
        for (std::size_t k = 0; k < count; ++k) total += left[k]->terms_.size() * right[k]->terms_.size();
        if (total == 0) return trig_poly{};
        buffer all(total);
        for (std::size_t k = 0; k < count; ++k) {
            const trig_poly& a = *left[k];
            const trig_poly& b = *right[k];
            if (b.is_constant()) {  // the common case of symbolic times numeric matrices
                for (std::size_t i = 0; i < a.terms_.size(); ++i) all.push({a.terms_[i].coefficient * b.terms_[0].coefficient, a.terms_[i].mono});
            } else if (a.is_constant()) {
                for (std::size_t j = 0; j < b.terms_.size(); ++j) all.push({a.terms_[0].coefficient * b.terms_[j].coefficient, b.terms_[j].mono});
            } else {
                for (std::size_t i = 0; i < a.terms_.size(); ++i)
                    for (std::size_t j = 0; j < b.terms_.size(); ++j)
                        all.push({a.terms_[i].coefficient * b.terms_[j].coefficient, a.terms_[i].mono * b.terms_[j].mono});
            }
        }
        return from_unsorted(std::move(all));
    }

    constexpr trig_poly& operator+=(const trig_poly& b) { return *this = *this + b; }
    constexpr trig_poly& operator-=(const trig_poly& b) { return *this = *this - b; }
    constexpr trig_poly& operator*=(const trig_poly& b) { return *this = *this * b; }

    friend constexpr bool operator==(const trig_poly& a, const trig_poly& b)
    {
        if (a.terms_.size() != b.terms_.size()) return false;
        for (std::size_t k = 0; k < a.terms_.size(); ++k)
            if (!(a.terms_[k].mono == b.terms_[k].mono) || !(a.terms_[k].coefficient == b.terms_[k].coefficient)) return false;
        return true;
    }

private:
    using buffer = detail::term_buffer<term>;

    /// c m, one term (c nonzero): already canonical.
    static constexpr trig_poly single_term(const Coefficient& c, const monomial& m)
    {
        trig_poly p;
        p.terms_ = buffer(1);
        p.terms_.push({c, m});
        return p;
    }

    template <native_integer N>
    static constexpr std::uint16_t angle_id(N angle)
    {
        if (!fits_in<std::uint16_t>(angle)) angle_id_out_of_range();
        return static_cast<std::uint16_t>(angle);
    }


    // c_plus w^L + c_minus w^-L, built directly in canonical order (cos and sin are the
    // building blocks of every rotation: no intermediate polynomials, no sort).
    static constexpr trig_poly two_phases(std::uint16_t angle, const form& exponent, const Coefficient& c_plus,
                                          const Coefficient& c_minus)
    {
        if (exponent.is_zero()) return trig_poly(c_plus + c_minus);
        monomial plus, minus;
        plus.phases = minus.phases = 1;
        plus.phase[0] = monomial::pack(angle, exponent);
        minus.phase[0] = monomial::pack(angle, -exponent);
        plus.phase_key = monomial::phase_hash(angle, exponent);
        minus.phase_key = 0 - plus.phase_key;
        trig_poly p;
        p.terms_ = buffer(2);
        if (minus < plus) {
            p.terms_.push({c_minus, minus});
            p.terms_.push({c_plus, plus});
        } else {
            p.terms_.push({c_plus, plus});
            p.terms_.push({c_minus, minus});
        }
        return p;
    }

    static constexpr trig_poly scaled(const trig_poly& p, const Coefficient& c)
    {
        trig_poly r;
        r.terms_ = buffer(p.terms_.size());
        for (std::size_t k = 0; k < p.terms_.size(); ++k) r.terms_.push({p.terms_[k].coefficient * c, p.terms_[k].mono});
        return r;
    }


    // Sorts, merges like terms and drops zeros.
    static constexpr trig_poly from_unsorted(buffer terms)
    {
        const std::size_t n = terms.size();
        if (n == 0) return trig_poly{};
        // Short lists (most of them) sort in a local array: no heap allocation.
        constexpr std::size_t local_capacity = 32;
        using sort_key = detail::term_sort_key<term>;
        sort_key local[2 * local_capacity];
        sort_key* keys = n <= local_capacity ? local : new sort_key[2 * n];
        for (std::size_t k = 0; k < n; ++k) keys[k] = {terms[k].mono.real_key, terms[k].mono.phase_key, &terms[k]};
        detail::sort_keys(keys, keys + n, n);
        trig_poly p;
        p.terms_ = buffer(n);
        for (std::size_t k = 0; k < n;) {
            Coefficient c = keys[k].item->coefficient;
            std::size_t next = k + 1;
            while (next < n && keys[next].item->mono == keys[k].item->mono)
                c += keys[next++].item->coefficient;
            if (!(c == Coefficient(0))) p.terms_.push({c, keys[k].item->mono});
            k = next;
        }
        if (keys != local) delete[] keys;
        return p;
    }

    // a + b or a - b of two canonical term lists, in one sorted pass.
    static constexpr trig_poly merge(const trig_poly& a, const trig_poly& b, bool subtract)
    {
        if (b.terms_.empty()) return a;  // shares a's terms: the common "0 + x" of accumulations
        if (a.terms_.empty()) {
            // Not `subtract ? -b : b`: with that conditional, g++ 12's constant evaluation
            // released the shared storage once too often (measured: "use of allocated storage
            // after deallocation" in `P() + p`).
            if (subtract) return -b;
            return b;
        }
        trig_poly r;
        r.terms_ = buffer(a.terms_.size() + b.terms_.size());
        std::size_t i = 0, j = 0;
        const std::size_t na = a.terms_.size(), nb = b.terms_.size();
        while (i < na || j < nb) {
            if (j == nb || (i < na && a.terms_[i].mono < b.terms_[j].mono)) {
                r.terms_.push(a.terms_[i++]);
            } else if (i == na || b.terms_[j].mono < a.terms_[i].mono) {
                const term& y = b.terms_[j++];
                r.terms_.push({subtract ? Coefficient(-y.coefficient) : y.coefficient, y.mono});
            } else {
                const Coefficient c = subtract ? Coefficient(a.terms_[i].coefficient - b.terms_[j].coefficient)
                                               : Coefficient(a.terms_[i].coefficient + b.terms_[j].coefficient);
                if (!(c == Coefficient(0))) r.terms_.push({c, a.terms_[i].mono});
                ++i;
                ++j;
            }
        }
        return r;
    }

    buffer terms_;  // canonical: sorted by (key, monomial), merged, no zero coefficients
};

} // namespace qkov
