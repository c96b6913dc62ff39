// trig_poly: exact symbolic trigonometric polynomials, for proofs that hold for *all* integer
// positions m, n, all angles theta_l and all real parameters (alpha, matrix entries, ...).
//
// Representation. cos and sin of (integer linear form L) x theta_l are exponentials: with
// w_l = e^{i theta_l},  cos(L theta_l) = (w_l^L + w_l^-L) / 2  and  sin(L theta_l) = (w_l^L - w_l^-L) / (2i).
// A trig_poly is a finite sum of terms  c * x_1^p_1 ... x_r^p_r * w_l1^L_1 ... w_lq^L_q  with
// c an exact complex coefficient (dyadic_gaussian by default, or gaussian<rational<I>>), x_j real
// symbols with natural powers, and L_k integer linear forms in
// symbolic integers (linear_form.hpp). Products multiply coefficients, add powers of equal real
// symbols and add the exponents of equal phases; a phase whose exponent becomes 0 is 1 and is
// dropped.
//
// Canonical form. Terms are kept sorted by monomial with like terms merged and zero
// coefficients dropped; each monomial keeps its factors sorted. So == is a comparison of term
// lists, and:
// - Sound: equal canonical forms are the same expression, hence the same function.
// - Complete: different canonical forms are different functions of (x, theta, positions). Group
//   the terms by their real monomial (distinct monomials in independent real variables are
//   linearly independent). Within a group, pick integer positions at which the finitely many
//   distinct exponent tuples (L_1, ..., L_q) stay distinct (distinct affine forms agree only on a
//   hyperplane, and finitely many hyperplanes do not cover the integer lattice). There the terms
//   are distinct characters of the torus theta in [0, 2 pi)^q, which are linearly independent
//   (Fourier), so every coefficient of the difference is 0.
// The angles are independent symbols: a statement proved here holds for every choice of the
// theta_l, in particular every RoPE schedule. A statement that needs a relation between angles
// (theta_2 = theta_1 / 2, say) is outside this class; it will not be proved, never wrongly.
//
// Capacities are fixed per monomial (MaxReals real factors, MaxPhases phases) so that terms are
// flat values; exceeding one is reported by symbolic_capacity_exceeded(), never truncated.
// Polynomials own heap storage: use them inside one constant evaluation (a constexpr function
// or lambda called from a static_assert), not as constexpr variables.
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "qkov/scalar/dyadic_gaussian.hpp"
#include "qkov/scalar/errors.hpp"
#include "qkov/scalar/gaussian.hpp"
#include "qkov/scalar/linear_form.hpp"
#include "qkov/scalar/native_integer.hpp"

namespace qkov {

namespace detail {
/// The term list of a trig_poly: a fixed-capacity array shared between copies.
///
/// Two measured costs of g++'s constant evaluator shape it. std::vector's push_back, copy and
/// std::sort are chains of library calls charged one by one (a 2 x 2-term product took 4.5 ms
/// with std::vector + std::sort). And every heap allocation is expensive (~0.5 ms to copy a
/// 2-term polynomial), while matrices of polynomials are copied constantly (transpose, blocks).
/// So copies share the storage and count references; polynomials are immutable once built, and
/// the only writer, the code that builds a new list, works on a buffer nobody else holds.
template <class T>
class term_buffer {
    // Uninitialized room without <memory> (0.5 s of parsing per translation unit): a union
    // member starts its lifetime when first assigned, which constant evaluation allows.
    struct slot {
        union {
            T value;
        };
        constexpr slot() {}
    };
    // Lists of up to four terms (cos, sin, most rotation entries) live inside the shared
    // header: one heap allocation instead of two.
    static constexpr std::size_t inline_capacity = 4;
    struct storage {
        slot inline_slots[inline_capacity];
        slot* data;
        std::size_t size;
        std::size_t capacity;
        std::size_t references;
        constexpr explicit storage(std::size_t n)
            : data(n <= inline_capacity ? inline_slots : new slot[n]), size(0), capacity(n), references(1)
        {
        }
        constexpr ~storage()
        {
            if (data != inline_slots) delete[] data;
        }
    };

public:
    constexpr term_buffer() = default;
    /// Uninitialized room for `capacity` terms, filled by copy-construction in push().
    constexpr explicit term_buffer(std::size_t capacity)
    {
        if (capacity == 0) return;
        shared_ = new storage(capacity);
    }
    constexpr term_buffer(const term_buffer& other) : shared_(other.shared_)
    {
        if (shared_) ++shared_->references;
    }
    constexpr term_buffer(term_buffer&& other) noexcept : shared_(other.shared_) { other.shared_ = nullptr; }
    constexpr term_buffer& operator=(term_buffer other) noexcept
    {
        std::swap(shared_, other.shared_);
        return *this;
    }
    constexpr ~term_buffer()
    {
        static_assert(std::is_trivially_destructible_v<T>, "term_buffer does not run element destructors");
        if (shared_ && --shared_->references == 0) delete shared_;
    }

    /// Appends within the capacity given at construction (callers size it exactly).
    constexpr void push(const T& x)
    {
        writable();
        if (shared_->size == shared_->capacity) throw std::logic_error("qkov: term_buffer capacity exceeded");
        shared_->data[shared_->size].value = x;
        ++shared_->size;
    }
    [[nodiscard]] constexpr std::size_t size() const { return shared_ ? shared_->size : 0; }
    [[nodiscard]] constexpr bool empty() const { return size() == 0; }
    constexpr const T& operator[](std::size_t k) const { return shared_->data[k].value; }

private:
    constexpr void writable() const
    {
        if (!shared_ || shared_->references != 1) throw std::logic_error("qkov: writing a shared or empty term_buffer");
    }

    storage* shared_ = nullptr;
};
} // namespace detail

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

    // Plain arrays and explicit counts: the monomial product is the innermost loop of every
    // proof, and g++'s constant evaluator charges a function call per std::array access.
    struct monomial {
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
        friend constexpr bool operator==(const monomial& a, const monomial& b)
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
        friend constexpr bool operator<(const monomial& a, const monomial& b)
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

        friend constexpr monomial operator*(const monomial& a, const monomial& b)
        {
            monomial r;
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
        [[nodiscard]] constexpr monomial conj() const
        {
            monomial r = *this;
            for (std::size_t k = 0; k < phases; ++k) r.phase[k] = add_exponents(phase[k] & 0xFFFF000000000000ULL, phase[k], -1);
            r.phase_key = 0 - phase_key;  // the phase key is linear in the exponents
            return r;
        }
    };

    struct term {
        Coefficient coefficient;
        monomial mono;
    };

    constexpr trig_poly() = default;
    constexpr trig_poly(const Coefficient& c)
    {
        if (!(c == Coefficient(0))) {
            terms_ = buffer(1);
            terms_.push({c, monomial{}});
        }
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
        trig_poly p;
        p.terms_ = buffer(1);
        p.terms_.push({Coefficient(1), m});
        return p;
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
        trig_poly p;
        p.terms_ = buffer(1);
        p.terms_.push({Coefficient(1), m});
        return p;
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

    // Sorting moves small keys, not terms: a term is ~20 scalars, and g++'s constant evaluator
    // copies aggregates field by field (measured: sorting 16 terms in place cost ~4 ms).
    struct sort_key {
        std::uint64_t real_key;
        std::uint64_t phase_key;
        const term* item;
    };

    static constexpr bool key_before(const sort_key& x, const sort_key& y)
    {
        if (x.real_key != y.real_key) return x.real_key < y.real_key;
        if (x.phase_key != y.phase_key) return x.phase_key < y.phase_key;
        return x.item->mono < y.item->mono;  // equal fingerprints: compare the fields
    }

    // Insertion sort on runs of 16, then bottom-up merges: O(n log n) for the thousands of
    // terms of products with symbolic matrix entries.
    static constexpr void sort_keys(sort_key* keys, sort_key* scratch, std::size_t n)
    {
        constexpr std::size_t run = 16;
        for (std::size_t lo = 0; lo < n; lo += run) {
            const std::size_t hi = lo + run < n ? lo + run : n;
            for (std::size_t i = lo + 1; i < hi; ++i) {
                if (!key_before(keys[i], keys[i - 1])) continue;
                const sort_key moving = keys[i];
                std::size_t j = i;
                while (j > lo && key_before(moving, keys[j - 1])) {
                    keys[j] = keys[j - 1];
                    --j;
                }
                keys[j] = moving;
            }
        }
        sort_key* from = keys;
        sort_key* to = scratch;
        for (std::size_t width = run; width < n; width *= 2) {
            for (std::size_t lo = 0; lo < n; lo += 2 * width) {
                const std::size_t mid = lo + width < n ? lo + width : n;
                const std::size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
                std::size_t i = lo, j = mid, k = lo;
                while (i < mid && j < hi) to[k++] = key_before(from[j], from[i]) ? from[j++] : from[i++];
                while (i < mid) to[k++] = from[i++];
                while (j < hi) to[k++] = from[j++];
            }
            std::swap(from, to);
        }
        if (from != keys)
            for (std::size_t k = 0; k < n; ++k) keys[k] = from[k];
    }

    // Sorts, merges like terms and drops zeros.
    static constexpr trig_poly from_unsorted(buffer terms)
    {
        const std::size_t n = terms.size();
        if (n == 0) return trig_poly{};
        // Short lists (most of them) sort in a local array: no heap allocation.
        constexpr std::size_t local_capacity = 32;
        sort_key local[2 * local_capacity];
        sort_key* keys = n <= local_capacity ? local : new sort_key[2 * n];
        for (std::size_t k = 0; k < n; ++k) keys[k] = {terms[k].mono.real_key, terms[k].mono.phase_key, &terms[k]};
        sort_keys(keys, keys + n, n);
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
