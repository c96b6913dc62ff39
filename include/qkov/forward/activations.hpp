// The MLP activations of the decoder stacks, by the name the config gives them.
//
//   gelu_new, gelu_pytorch_tanh, gelu_fast   0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))  (GPT-2)
//   gelu                                     0.5 x (1 + erf(x / sqrt 2))                         (GPT-NeoX)
//   silu, swish                              x / (1 + exp(-x))       (Llama's SwiGLU gate)
// Any other name is refused: a guessed activation would give plausible, wrong logits.
#pragma once

#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

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

} // namespace qkov::forward
