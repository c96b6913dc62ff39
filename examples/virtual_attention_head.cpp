// Seed 002, Exercise 1 at run time: two previous-token heads and the virtual head they make.
// Prints W_net^1, W_net^2, their product (the two-token copy) and the capacity split; exits
// non-zero if any of the printed facts fails. The same construction is proved at compile time
// in proofs/T4_virtual_head.cpp.
#include <cstdio>

#include "qkov/circuits/composition.hpp"
#include "qkov/circuits/dimension_copy_head.hpp"
#include "qkov/circuits/qk_ov.hpp"
#include "qkov/matrix/elimination.hpp"

using namespace qkov;
using Z = checked_int64;

template <std::size_t D>
void print_entries(const char* name, const matrix<Z, D, D>& m)
{
    std::printf("%-22s", name);
    for (std::size_t i = 0; i < D; ++i)
        for (std::size_t j = 0; j < D; ++j)
            if (!is_zero(m(i, j))) std::printf(" (%zu, %zu)", i, j);
    std::printf("\n");
}

int main()
{
    const auto head1 = dimension_copy_head<Z, 16, 4>({0, 1, 2, 3}, {8, 9, 10, 11});
    const auto head2 = dimension_copy_head<Z, 16, 4>({4, 5, 6, 8}, {12, 13, 14, 15});
    const auto w_net1 = ov_circuit(head1.w_out, head1.w_v);
    const auto w_net2 = ov_circuit(head2.w_out, head2.w_v);
    const auto two_token = virtual_head(w_net2, w_net1);
    print_entries("W_net^1 nonzeros:", w_net1);
    print_entries("W_net^2 nonzeros:", w_net2);
    print_entries("W_net^2 W_net^1:", two_token);
    const std::size_t composed = rank(composition_matrix(head2, head1));
    const std::size_t total = rank(w_net1) + rank(w_net2);
    std::printf("channels: %zu of %zu compose (two-back copy), %zu copy the previous token\n", composed, total,
                total - composed);
    const bool ok = count_nonzero(two_token) == 1 && two_token(15, 0) == Z(1) && composed == 1 && total == 8;
    std::printf("%s\n", ok ? "as seed 002 states" : "DIFFERS from seed 002");
    return ok ? 0 : 1;
}
