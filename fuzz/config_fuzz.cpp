// Any bytes as config.json: a model_file_error or a configuration whose sizes are consistent.
#include <cstdlib>

#include "fuzz_file.hpp"
#include "qkov/io/model_config.hpp"
#include "qkov/io/safetensors_index.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    try {
        const auto path = fuzz_input_file(data, size, ".json");
        const auto c = qkov::io::parse_model_config(qkov::io::read_json_object(path), path.string());
        if (c.heads == 0 || c.kv_heads == 0 || c.heads % c.kv_heads != 0 || c.head_dim == 0) std::abort();
        if (c.rope && c.rope->rotary_dim > c.head_dim) std::abort();
    } catch (const qkov::io::model_file_error&) {
    } catch (const nlohmann::json::exception&) {
    }
    return 0;
}
