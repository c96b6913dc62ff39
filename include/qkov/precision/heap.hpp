// Large fixed-size matrices on the heap.
//
// qkov::matrix stores its entries inline (it is a literal type, for constant evaluation). At run
// time with 100-digit scalars (80 bytes each for cpp_bin_float_100) a 768 x 768 matrix is 47 MB
// and a 64 x 768 one 3.9 MB: the 8 MB default stack cannot hold them. on_heap(make) builds the
// result of make() directly in heap storage: make() returns a prvalue, which initializes the new
// object in place (guaranteed copy elision), and the matrix operations build their result in a
// named local that they return (NRVO), so no full-size copy passes through the stack.
#pragma once

#include <memory>
#include <type_traits>
#include <utility>

namespace qkov::precision {

template <class Make>
std::unique_ptr<std::invoke_result_t<Make>> on_heap(Make&& make)
{
    using M = std::invoke_result_t<Make>;
    return std::unique_ptr<M>(new M(std::forward<Make>(make)()));
}

} // namespace qkov::precision
