// Any bytes as a llama2.c .bin checkpoint: a model_file_error, or a header whose sizes match the
// file and, from it, every head of the first layers.
#include "fuzz_file.hpp"
#include "qkov/model/llama2c_model.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    try {
        const auto model = qkov::model::open_llama2c_model(fuzz_input_file(data, size, ".bin"));
        for (std::size_t l = 0; l < model.config().layers && l < 4; ++l) (void)model.layer(l);
    } catch (const qkov::io::model_file_error&) {
    }
    return 0;
}
