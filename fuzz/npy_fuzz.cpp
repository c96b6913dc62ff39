// Any bytes as a .npy file (qkov audit-rope reads tables and vectors from them): either an
// npy_error or an array whose value count matches its shape and whose every value is finite.
#include <cmath>
#include <cstdlib>

#include "fuzz_file.hpp"
#include "qkov/io/npy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const auto path = fuzz_input_file(data, size, ".npy");
    for (const bool bf16 : {false, true}) {
        try {
            const auto array = qkov::io::read_npy(path.string(), {.uint16_is_bf16 = bf16});
            std::size_t count = 1;
            for (const auto n : array.shape) count *= n;
            if (count != array.values.size()) std::abort();  // the shape and the values disagree
            for (const double v : array.values)
                if (!std::isfinite(v)) std::abort();  // a NaN or infinity got through
        } catch (const qkov::io::npy_error&) {
        }
    }
    return 0;
}
