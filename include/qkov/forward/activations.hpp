// The MLP activations of the decoder stacks, by the name the config gives them.
//
//   gelu_new, gelu_pytorch_tanh, gelu_fast   0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))  (GPT-2)
//   gelu                                     0.5 x (1 + erf(x / sqrt 2))                         (GPT-NeoX)
//   silu, swish                              x / (1 + exp(-x))       (Llama's SwiGLU gate)
// Any other name is refused: a guessed activation would give plausible, wrong logits.
//
// activate() is the formula, one value at a time. activate_in_place() is what the MLP runs over
// its n x F hidden layer: std::tanh and std::exp are a library call per element, which no loop can
// vectorize, and on GPT-2 small at 1,024 tokens those calls were about 15% of the forward pass.
// Both gelu_new and silu are x * sigmoid(s), since 0.5 (1 + tanh(u)) = 1 / (1 + exp(-2u)):
//   gelu_new  s = 2 sqrt(2/pi) (x + 0.044715 x^3),   silu  s = x,
// so the array version computes exp(-s) with numeric/vector_exp.hpp's vectorized kernel (a few
// ulps) and then x / (1 + exp(-s)): the same values to float rounding. Where exp(-s) overflows
// the result is x / inf = -0 (the limit); where it underflows, x. The erf gelu stays per element.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <numbers>
#include <stdexcept>
#include <string>

#include "qkov/numeric/vector_exp.hpp"

namespace qkov::forward {

enum class activation { gelu_tanh, gelu_erf, silu };

inline activation parse_activation(const std::string& name)
{
    if (name == "gelu_new" || name == "gelu_pytorch_tanh" || name == "gelu_fast") return activation::gelu_tanh;
    if (name == "gelu") return activation::gelu_erf;
    if (name == "silu" || name == "swish") return activation::silu;
    throw std::invalid_argument("qkov: the forward pass does not know the activation '" + name + "' (it knows gelu_new, gelu_pytorch_tanh, gelu, silu)");
}

template <class T>
T activate(activation a, T x)
{
    switch (a) {
    case activation::gelu_tanh: {
        const T c = static_cast<T>(std::sqrt(2.0 / std::numbers::pi));
        return T(0.5) * x * (T(1) + std::tanh(c * (x + T(0.044715) * x * x * x)));
    }
    case activation::gelu_erf: return T(0.5) * x * (T(1) + std::erf(x / static_cast<T>(std::numbers::sqrt2)));
    case activation::silu: return x / (T(1) + std::exp(-x));
    }
    return x;
}

/// values[i] = activate(a, values[i]) for i < n, vectorized for gelu_tanh and silu (see above).
template <class T>
void activate_in_place(activation a, T* values, std::size_t n)
{
    if (a == activation::gelu_erf) {
        for (std::size_t i = 0; i < n; ++i) values[i] = activate(a, values[i]);
        return;
    }
    // A chunk's exp(-s) fits in L1 beside the values it is read back with.
    constexpr std::size_t chunk = 1024;
    T e[chunk];
    const T c = static_cast<T>(2 * std::sqrt(2.0 / std::numbers::pi)), cubic = T(0.044715);
    for (std::size_t first = 0; first < n; first += chunk) {
        const std::size_t m = std::min(chunk, n - first);
        T* x = values + first;
        if (a == activation::gelu_tanh)
            for (std::size_t i = 0; i < m; ++i) e[i] = -(c * (x[i] + cubic * x[i] * x[i] * x[i]));
        else
            for (std::size_t i = 0; i < m; ++i) e[i] = -x[i];
        numeric::exp_shifted_in_place(e, m, T(0));
        for (std::size_t i = 0; i < m; ++i) x[i] = x[i] / (T(1) + e[i]);
    }
}

} // namespace qkov::forward
