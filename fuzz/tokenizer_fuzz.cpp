// Any bytes as a llama2.c tokenizer: a model_file_error, or pieces that all decode. The first
// two bytes of the input (little-endian) choose the vocabulary size the reader is asked for.
#include "fuzz_file.hpp"
#include "qkov/io/llama2c_tokenizer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    if (size < 2) return 0;
    try {
        const qkov::io::llama2c_tokenizer t(fuzz_input_file(data + 2, size - 2, ".tok"), data[0] + 256u * data[1]);
        for (std::uint32_t i = 0; i < t.size(); ++i) (void)t.decode(qkov::io::llama2c_tokenizer::bos, i);
    } catch (const qkov::io::model_file_error&) {
    }
    return 0;
}
