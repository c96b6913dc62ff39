// Any bytes as a .gguf file: a model_file_error or readable tensors and, when the metadata makes
// a model, every head of every layer.
#include "fuzz_file.hpp"
#include "qkov/model/gguf_model.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    try {
        const auto model = qkov::model::open_gguf_model(fuzz_input_file(data, size, ".gguf"));
        for (std::size_t l = 0; l < model.config().layers && l < 4; ++l) (void)model.layer(l);
    } catch (const qkov::io::model_file_error&) {
    } catch (const std::out_of_range&) {
    }
    return 0;
}
