// The symbolic engine at run time: exact ring laws, agreement with floating-point evaluation
// at random points (validation with a tolerance), RoPE built from each arithmetic.
#define BOOST_TEST_MODULE qkov symbolic
#include <boost/test/unit_test.hpp>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include "qkov/circuits/positional_heads.hpp"
#include "qkov/circuits/rope.hpp"
#include "qkov/matrix/symbolic_entries.hpp"
#include "qkov/scalar/dyadic_gaussian.hpp"
#include "qkov/scalar/gaussian.hpp"
#include "qkov/scalar/trig_poly.hpp"
#include "qkov/scalar/trig_poly_evaluate.hpp"

using namespace qkov;
using P = trig_poly<>;
// Random polynomials mix up to six angles and real symbols per monomial: wider capacities.
using PW = trig_poly<dyadic_gaussian, 8, 8, 2>;

namespace {
struct random_point {
    std::vector<double> reals, angles;
    std::array<std::int64_t, 2> positions;
};

random_point draw_point(std::mt19937_64& gen)
{
    std::uniform_real_distribution<double> real(-2, 2), angle(0, 6.3);
    std::uniform_int_distribution<std::int64_t> pos(-50, 50);
    random_point p;
    for (int k = 0; k < 8; ++k) p.reals.push_back(real(gen));
    for (int k = 0; k < 8; ++k) p.angles.push_back(angle(gen));
    p.positions = {pos(gen), pos(gen)};
    return p;
}

// A random polynomial from the building blocks: variables, cos and sin of random forms.
PW draw_poly(std::mt19937_64& gen)
{
    std::uniform_int_distribution<int> pick(0, 4), id(0, 3), ang(0, 3), coef(-3, 3);
    const auto m = position(0), n = position(1);
    PW p(coef(gen));
    for (int k = 0; k < 3; ++k) {
        const auto form = coef(gen) * m + coef(gen) * n + coef(gen);
        switch (pick(gen)) {
        case 0: p += PW::variable(static_cast<std::uint16_t>(id(gen))); break;
        case 1: p += PW::cos(static_cast<std::uint16_t>(ang(gen)), form); break;
        case 2: p += PW::sin(static_cast<std::uint16_t>(ang(gen)), form) * PW::variable(static_cast<std::uint16_t>(id(gen))); break;
        case 3: p -= PW::phase(static_cast<std::uint16_t>(ang(gen)), form); break;
        default: p = p * PW(coef(gen)); break;
        }
    }
    return p;
}

bool close(std::complex<double> a, std::complex<double> b) { return std::abs(a - b) <= 1e-9 * (1 + std::abs(a) + std::abs(b)); }
} // namespace

BOOST_AUTO_TEST_CASE(dyadic_gaussian_agrees_with_gaussian_rationals)
{
    using G = gaussian<rational64>;
    std::mt19937_64 gen(1);
    std::uniform_int_distribution<std::int64_t> v(-1000, 1000);
    std::uniform_int_distribution<std::uint32_t> s(0, 6);
    auto as_gaussian = [](const dyadic_gaussian& z) {
        const std::int64_t den = std::int64_t{1} << z.shift();
        return G(rational64(z.real_numerator(), den), rational64(z.imag_numerator(), den));
    };
    for (int k = 0; k < 20000; ++k) {
        const dyadic_gaussian a(v(gen), v(gen), s(gen)), b(v(gen), v(gen), s(gen));
        BOOST_REQUIRE(as_gaussian(a * b) == as_gaussian(a) * as_gaussian(b));
        BOOST_REQUIRE(as_gaussian(a + b) == as_gaussian(a) + as_gaussian(b));
        BOOST_REQUIRE(as_gaussian(a - b) == as_gaussian(a) - as_gaussian(b));
        BOOST_REQUIRE((a == b) == (as_gaussian(a) == as_gaussian(b)));
    }
    const dyadic_gaussian huge(std::numeric_limits<std::int64_t>::max() / 2, 0, 0);
    BOOST_CHECK_THROW(huge * huge, std::overflow_error);
    const dyadic_gaussian tiny(1, 0, 0x80000000u);
    BOOST_CHECK_THROW(tiny * tiny, std::overflow_error);  // the power of two must not wrap around
    BOOST_CHECK_THROW((void)dyadic_gaussian(0, std::numeric_limits<std::int64_t>::min(), 0).conj(), std::overflow_error);
}

BOOST_AUTO_TEST_CASE(ring_laws_hold_exactly)
{
    std::mt19937_64 gen(2);
    for (int k = 0; k < 300; ++k) {
        const PW a = draw_poly(gen), b = draw_poly(gen), c = draw_poly(gen);
        BOOST_REQUIRE(a * b == b * a);
        BOOST_REQUIRE((a * b) * c == a * (b * c));
        BOOST_REQUIRE(a * (b + c) == a * b + a * c);
        BOOST_REQUIRE((a - a).is_zero());
        BOOST_REQUIRE(a.conj().conj() == a);
        BOOST_REQUIRE(a.real() + a.imag() * PW(dyadic_gaussian::i()) == a);
    }
}

BOOST_AUTO_TEST_CASE(symbolic_results_match_floating_point_evaluation)
{
    // Validation, not proof: the canonical form evaluates to what the same operations give
    // on numbers, at random points, to 1e-9 relative.
    std::mt19937_64 gen(3);
    for (int k = 0; k < 300; ++k) {
        const PW a = draw_poly(gen), b = draw_poly(gen);
        const auto pt = draw_point(gen);
        const auto ea = evaluate(a, pt.reals, pt.angles, pt.positions);
        const auto eb = evaluate(b, pt.reals, pt.angles, pt.positions);
        BOOST_REQUIRE(close(evaluate(a * b, pt.reals, pt.angles, pt.positions), ea * eb));
        BOOST_REQUIRE(close(evaluate(a + b, pt.reals, pt.angles, pt.positions), ea + eb));
        BOOST_REQUIRE(close(evaluate(a.conj(), pt.reals, pt.angles, pt.positions), std::conj(ea)));
    }
    const auto m = position(0);
    const auto pt = draw_point(gen);
    BOOST_CHECK(close(evaluate(P::cos(2, 3 * m + 1), pt.reals, pt.angles, pt.positions),
                      std::cos((3.0 * pt.positions[0] + 1) * pt.angles[2])));
    BOOST_CHECK(close(evaluate(P::sin(1, m), pt.reals, pt.angles, pt.positions), std::sin(pt.positions[0] * pt.angles[1])));
}

BOOST_AUTO_TEST_CASE(symbolic_rope_evaluates_to_numeric_rope)
{
    // One rope_rotation, two arithmetics: the symbolic R_m at (m, theta) equals the double R_m.
    constexpr std::size_t d = 8;
    using RS = rope_rotation<P, rope_layout{d, d, rope_pairing::rotate_half}>;
    using RD = rope_rotation<double, rope_layout{d, d, rope_pairing::rotate_half}>;
    const auto theta = standard_theta<double, d / 2>(10000.0);
    const numeric_angles<double, d / 2> numeric{theta};
    const auto symbolic = RS::at(symbolic_angles<P>{}, position(0)).dense();
    for (std::int64_t m : {-7, 0, 3, 1000}) {
        const auto dense = RD::at(numeric, m).dense();
        const std::vector<double> angles(theta.begin(), theta.end());
        for (std::size_t i = 0; i < d; ++i)
            for (std::size_t j = 0; j < d; ++j)
                BOOST_REQUIRE(close(evaluate(symbolic(i, j), {}, angles, {m, 0}), dense(i, j)));
    }
}

BOOST_AUTO_TEST_CASE(theta_schedules)
{
    const auto standard = standard_theta<double, 32>(10000.0);
    BOOST_CHECK_EQUAL(standard[0], 1.0);
    BOOST_CHECK_CLOSE(standard[31], std::pow(10000.0, -62.0 / 64.0), 1e-12);
    const auto variant = seed_variant_theta<double, 32>();
    BOOST_CHECK_CLOSE(variant[31], 1e-4, 1e-12);  // the seed's variant ends at exactly 10^-4
    BOOST_CHECK(standard[31] > 1.3e-4);            // the standard one ends at 10^-3.875 = 1.33e-4
}

BOOST_AUTO_TEST_CASE(exact_rational_rotations_are_orthogonal)
{
    using Q = rational128;
    using R = rope_rotation<Q, interleaved_layout(4)>;
    const rational_angles<Q, 2> angles{{{{2, 1}, {3, 2}}}};
    for (std::int64_t m = -6; m <= 6; ++m) {
        const auto r = R::at(angles, m);
        BOOST_REQUIRE(transpose(r) * r == R{});
        BOOST_REQUIRE(r * R::at(angles, 3) == R::at(angles, m + 3));
    }
    BOOST_CHECK(R::at(angles, 1).block_at(0)(0, 0) == Q(3, 5));
}

BOOST_AUTO_TEST_CASE(previous_token_head_with_doubles)
{
    // The construction the proofs use, instantiated with double: the previous token scores
    // (d/2) alpha (to rounding), every other earlier token less.
    constexpr std::size_t d = 64, D = 4;
    constexpr rope_layout L = interleaved_layout(d);
    using R = rope_rotation<double, L>;
    const numeric_angles<double, d / 2> angles{standard_theta<double, d / 2>(10000.0)};
    const auto head = previous_token_head<L, D>(angles, 2.0);
    const auto x = matrix<double, D, 1>::from_rows({{1.0}, {0.3}, {-1.2}, {4.0}});
    const auto q = R::at(angles, 20) * (head.w_q * x);
    for (std::int64_t m = 0; m <= 20; ++m) {
        const double s = (transpose(q) * (R::at(angles, m) * (head.w_k * x)))(0, 0);
        if (m == 19)
            BOOST_CHECK_CLOSE(s, 64.0, 1e-9);
        else
            BOOST_CHECK(s < 64.0 - 1e-3);
    }
}

BOOST_AUTO_TEST_CASE(capacities_and_overflow_are_reported)
{
    P p(1);
    for (std::uint16_t k = 0; k < 4; ++k) p = p * P::variable(k);
    BOOST_CHECK_THROW(p * P::variable(9), std::length_error);  // a fifth real factor
    const auto big = linear_form<>(std::numeric_limits<std::int32_t>::max());
    BOOST_CHECK_THROW(big + linear_form<>(1), std::overflow_error);
    BOOST_CHECK_THROW(linear_form<>::symbol(2), std::out_of_range);
}

// The same refusals as the compile-fail cases, at run time: each entry point throws instead of
// wrapping (a position of 2^32, a constant of 2^64 - 1, id 65536) and keeps values that fit.
BOOST_AUTO_TEST_CASE(numbers_entering_symbolic_scalars_are_checked_at_run_time)
{
    volatile std::int64_t wide = std::int64_t{1} << 32;  // volatile: the checks run at run time
    BOOST_CHECK_THROW(linear_form<>(static_cast<std::int64_t>(wide)), std::out_of_range);
    BOOST_CHECK_THROW(linear_form<>(-static_cast<std::int64_t>(wide)), std::out_of_range);
    BOOST_CHECK_EQUAL(linear_form<>(std::uint64_t{2147483647}).constant(), 2147483647);
    volatile std::uint64_t all_ones = std::numeric_limits<std::uint64_t>::max();
    BOOST_CHECK_THROW(P(static_cast<std::uint64_t>(all_ones)), std::out_of_range);
    BOOST_CHECK_THROW(P(static_cast<__int128>(all_ones) + 1), std::out_of_range);
    BOOST_CHECK(P(static_cast<__int128>(-7)) == P(-7));
    volatile int id = 65536;
    BOOST_CHECK_THROW(P::variable(static_cast<int>(id)), std::out_of_range);
    BOOST_CHECK_THROW(P::cos(static_cast<int>(id), position(0)), std::out_of_range);
    BOOST_CHECK_THROW(P::variable(-1), std::out_of_range);
    BOOST_CHECK((symbolic_entries<P, 1, 1>(65535)(0, 0) == P::variable(65535)));
    std::uint16_t next = 0;
    BOOST_CHECK_THROW((symbolic_entries<P, 1, 1>(65535, &next)), std::out_of_range);  // no id 65536 to hand out
}

BOOST_AUTO_TEST_CASE(from_double_gives_the_exact_value)
{
    // Against values written as integers and powers of two by hand.
    BOOST_CHECK(dyadic_gaussian::from_double(0.1) == dyadic_gaussian(0x1999999999999A, 0, 56));
    BOOST_CHECK(dyadic_gaussian::from_double(-0.0) == dyadic_gaussian(0));
    BOOST_CHECK(dyadic_gaussian::from_double(0x1p62) == dyadic_gaussian(std::int64_t{1} << 62));
    BOOST_CHECK_THROW(dyadic_gaussian::from_double(0x1p63), std::out_of_range);
    BOOST_CHECK_THROW(dyadic_gaussian::from_double(std::numeric_limits<double>::quiet_NaN()), std::domain_error);
    BOOST_CHECK_THROW(dyadic_gaussian::from_double(std::numeric_limits<double>::infinity()), std::domain_error);
}
