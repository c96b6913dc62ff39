// Boost.Multiprecision's MPFR floats for the precision layer (needs libmpfr-dev; link -lmpfr -lgmp).
//
// The aliases switch expression templates off: generic code keeps intermediate results in
// `auto`, which must be numbers, not unevaluated expressions. They keep their limbs inside the
// object (allocate_stack) rather than on the heap: a 50- or 100-digit number needs a few limbs,
// and generic code makes many short-lived temporaries (block products, differences), each of
// which would otherwise cost an mpfr_init2 / mpfr_clear pair with a malloc / free.
// joint_cos_sin lets numeric_angles (circuits/rope.hpp) get cos and sin from one mpfr_sin_cos
// call, which shares the argument reduction: include this header before numeric_angles is used
// with these types.
#pragma once

#include <boost/multiprecision/mpfr.hpp>

#include <utility>

#include "qkov/circuits/rope.hpp"

namespace qkov {

namespace precision {
namespace mp = boost::multiprecision;
using mpfr_50 = mp::number<mp::mpfr_float_backend<50, mp::allocate_stack>, mp::et_off>;
using mpfr_100 = mp::number<mp::mpfr_float_backend<100, mp::allocate_stack>, mp::et_off>;
} // namespace precision

template <unsigned Digits10, boost::multiprecision::mpfr_allocation_type Allocation, boost::multiprecision::expression_template_option ET>
struct joint_cos_sin<boost::multiprecision::number<boost::multiprecision::mpfr_float_backend<Digits10, Allocation>, ET>> {
    static constexpr bool available = true;
    using number = boost::multiprecision::number<boost::multiprecision::mpfr_float_backend<Digits10, Allocation>, ET>;
    static std::pair<number, number> evaluate(const number& angle)
    {
        std::pair<number, number> cs;
        mpfr_sin_cos(cs.second.backend().data(), cs.first.backend().data(), angle.backend().data(), MPFR_RNDN);
        return cs;
    }
};

} // namespace qkov
