// Any bytes as a .safetensors file: either a model_file_error or tensors whose every value can be
// read (a view past the mapped bytes would be caught by AddressSanitizer).
#include "fuzz_file.hpp"
#include "qkov/io/safetensors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    try {
        qkov::io::safetensors_file f(fuzz_input_file(data, size, ".safetensors"));
        double sum = 0;
        for (const auto& name : f.names()) {
            const auto* t = f.find(name);
            for (std::size_t i = 0; i < t->elements(); ++i) sum += t->at(i);
        }
        (void)sum;
    } catch (const qkov::io::model_file_error&) {
    }
    return 0;
}
