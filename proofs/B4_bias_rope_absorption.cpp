// Claim B4: with biases and RoPE together (Pythia style: partial rotary, rotate_half pairing),
// scores still reduce to the one fixed Omega = W_Q W_K^T of the head:
// (x_d^T W_Q + b_Q^T) R_d R_s^T (W_K^T x_s + b_K) = ((x_d + c_d)^T M_d) Omega (M_s (x_s + c_s)).
// Kind: P (symbolic positions and angles; exact W_Q, W_K (D = 16, d = 8), biases; rotary_dim 4 of 8).
//
// Both sides are bilinear in (x_d, x_s) plus lower-order terms, so the identity for all x is
// exactly four matrix identities, each checked here: the x_d x_s part (B3's identity in this
// layout), the parts linear in x_s and in x_d, and the constant. The offsets are
// c_d = (b_Q^T W_Q^+)^T and c_s = (b_K^T W_K^+)^T (circuits/absorption.hpp), exact.
#include "absorption_instances.hpp"

namespace {
constexpr rope_layout pythia_like{d, 4, rope_pairing::rotate_half};

/// The claim with shift = 0 (the false twin shifts the relative position of the bias terms).
constexpr bool bias_and_rope_absorbed(std::uint64_t seed, std::int32_t shift = 0)
{
    const auto sides = absorption<pythia_like>(seed, 0);
    const auto b_q_exact = random_integer_matrix<Q, d, 1>(seed + 7, -5, 5);
    const auto b_k_exact = random_integer_matrix<Q, d, 1>(seed + 8, -5, 5);
    const auto c_d_exact = query_bias_offset(sides.w_q_exact, b_q_exact);
    const auto c_s_exact = key_bias_offset(sides.w_k_exact, b_k_exact);
    // The offsets reproduce the biases exactly: c_d^T W_Q = b_Q^T and W_K^T c_s = b_K.
    if (!(transpose(c_d_exact) * sides.w_q_exact == transpose(b_q_exact)) ||
        !(transpose(sides.w_k_exact) * c_s_exact == b_k_exact))
        return false;

    const auto w_q = to_dyadic(sides.w_q_exact), w_k = to_dyadic(sides.w_k_exact);
    const auto b_q = to_dyadic(b_q_exact), b_k = to_dyadic(b_k_exact);
    const auto c_d = to_dyadic(c_d_exact), c_s = to_dyadic(c_s_exact);
    const auto relative = rope_rotation<P, pythia_like>::at(symbolic_angles<P>{}, position(0) - position(1) + shift);
    const auto bias_row_rotated = rotate_columns(transpose(b_q), relative);  // b_Q^T R_{d-s}
    return sides.absorbed == sides.direct && sides.seed_form_holds &&               // x_d ... x_s
           transpose(c_d) * sides.absorbed == bias_row_rotated * transpose(w_k) &&  // b_Q^T ... x_s
           sides.absorbed * c_s == rotate_columns(w_q, relative) * b_k &&           // x_d ... b_K
           transpose(c_d) * sides.absorbed * c_s == bias_row_rotated * b_k;         // b_Q^T ... b_K
}

static_assert(bias_and_rope_absorbed(21), "B4: bias and partial rotate_half RoPE absorbed into one Omega (D = 16, d = 8)");
} // namespace
