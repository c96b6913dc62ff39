// Any bytes as a scan's JSON, through both readers of scan documents: detect --scan's
// (read_scan_labels) ends with its named error or labels it accepts, and merge-scans' shard reader
// (read_scan_shard) with its named error or a shard, which merge_scans then joins or refuses by
// name. Any other exception (a JSON type error, an out-of-range index) escapes and is a finding.
// The composition tensors a document names are read only after their SHA-256 matches, so fuzzed
// documents stop there; the tensor reader's own checks are fuzzed through the safetensors harness.
// The same bytes as a shard-inputs manifest (scan/shard_inputs.hpp) read against the identity
// fuzz_shard_identity (make_corpus.sh seeds a manifest of it): its named error, or a manifest whose
// named files are then refused or read.
#include <filesystem>
#include <utility>
#include <vector>

#include "fuzz_file.hpp"
#include "fuzz_shard_inputs.hpp"
#include "qkov/detect/scan_labels.hpp"
#include "qkov/scan/scan_merge.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const auto path = fuzz_input_file(data, size, ".json");
    try {
        (void)qkov::detect::read_scan_labels(path);
    } catch (const qkov::detect::scan_file_error&) {
    }
    try {
        std::vector<qkov::scan::scan_shard> shards;
        shards.push_back(qkov::scan::read_scan_shard(path));
        (void)qkov::scan::merge_scans(std::move(shards), path.parent_path() / "merged.tensors.safetensors");
    } catch (const qkov::scan::scan_merge_error&) {
    }
    const auto dir = fuzz_shard_directory();
    std::filesystem::copy_file(path, dir / qkov::scan::shard_inputs_manifest, std::filesystem::copy_options::overwrite_existing);
    read_fuzz_shard_inputs(dir);
    return 0;
}
