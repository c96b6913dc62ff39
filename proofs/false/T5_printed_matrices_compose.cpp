// False twin of T5: "the matrices as printed compose". Multiplying the printed 15 x 16 circuits
// must be rejected with a diagnostic that names the product and both shapes.
// expect-error-gcc: shapes_must_fit<qkov::op::product, qkov::shape<15, 16>, qkov::shape<15, 16>, false>
// expect-error-gcc: matrix shapes do not fit this operation
// expect-error-clang: qkov::shapes_must_fit<qkov::op::product, qkov::shape<15, 16>, qkov::shape<15, 16>, false>
// expect-error-clang: matrix shapes do not fit this operation
#include "../T5_seed_printed_shapes.cpp"

namespace {
constexpr auto two_token_copy_printed = W_net2_printed * W_net1_printed;
}
