// Any bytes as a .safetensors file: either a model_file_error or tensors whose every value can be
// read (a view past the mapped bytes would be caught by AddressSanitizer). The same bytes as a
// scan's composition tensors (scan/composition_tensors.hpp), named by their own SHA-256 so the
// checksum lets them through: a named error, or tensors of the shape their q_composition gives
// whose every row can be read. And, when it holds a tensor of one, as each file of a shard's inputs
// (scan/shard_inputs.hpp): the token side, a layer's rows, the circuit writes, named by a manifest
// with their SHA-256.
#include <filesystem>
#include <vector>

#include "fuzz_file.hpp"
#include "fuzz_shard_inputs.hpp"
#include "qkov/io/document_schemas.hpp"
#include "qkov/io/safetensors.hpp"
#include "qkov/scan/composition_tensors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const auto path = fuzz_input_file(data, size, ".safetensors");
    std::size_t layers = 1, heads = 1;
    bool shard_file = false;  // a tensor a shard-inputs file holds: read it as one below
    try {
        qkov::io::safetensors_file f(path);
        double sum = 0;
        for (const auto& name : f.names()) {
            const auto* t = f.find(name);
            for (std::size_t i = 0; i < t->elements(); ++i) sum += t->at(i);
        }
        (void)sum;
        shard_file = f.find("proxy") || f.find("token_circuit") || f.find("writes.heads");
        if (const auto* q = f.find("q_composition"); q && q->shape.size() == 4 && q->shape[0] <= 64 && q->shape[1] <= 64)
            layers = q->shape[0], heads = q->shape[1];
    } catch (const qkov::io::model_file_error&) {
    }
    try {
        const qkov::scan::composition_tensors_reader r(path, qkov::io::file_sha256(path), layers, heads);
        std::vector<double> row;
        for (std::size_t tensor = 0; tensor < qkov::scan::composition_tensor_count; ++tensor)
            for (std::size_t layer = 0; layer < layers; ++layer)
                for (std::size_t head = 0; head < heads; ++head) {
                    row.resize(r.shape().row_values(tensor));
                    r.read(tensor, layer, head, 0, layers - 1, row);
                }
    } catch (const qkov::io::model_file_error&) {
    } catch (const qkov::scan::composition_tensors_error&) {
    }
    if (!shard_file) return 0;  // the manifest and a copy per input would slow every other input's run fivefold
    const auto dir = fuzz_shard_directory();
    std::filesystem::copy_file(path, dir / "inputs.safetensors", std::filesystem::copy_options::overwrite_existing);
    const std::string sha = qkov::io::file_sha256(path);
    nlohmann::json manifest = fuzz_shard_identity();
    manifest["schema"] = qkov::schemas::shard_inputs;
    manifest["common"] = {{"file", "inputs.safetensors"}, {"sha256", sha}, {"vocabulary", 4}};
    manifest["layers"] = {{{"layer", 1}, {"file", "inputs.safetensors"}, {"sha256", sha}}};
    manifest["circuits"] = {{{"first_layer", 1}, {"file", "inputs.safetensors"}, {"sha256", sha}}};
    std::ofstream(dir / qkov::scan::shard_inputs_manifest) << manifest.dump();
    read_fuzz_shard_inputs(dir);
    return 0;
}
