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
// or lambda called from a static_assert), not as constexpr variables.//
// One header per part: trig_term_buffer.hpp (the shared term list), trig_monomial.hpp (one
// monomial, packed), trig_term_sort.hpp (canonical order by keys), trig_polynomial.hpp (trig_poly).
#pragma once

#include "qkov/scalar/trig_monomial.hpp"
#include "qkov/scalar/trig_polynomial.hpp"
#include "qkov/scalar/trig_term_buffer.hpp"
#include "qkov/scalar/trig_term_sort.hpp"
