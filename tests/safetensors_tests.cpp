// safetensors reader: the real fixtures, and one hostile file per class of bad input, built byte
// by byte here (never copied from elsewhere).
#define BOOST_TEST_MODULE safetensors
#include <boost/test/unit_test.hpp>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "qkov/io/open_checkpoint.hpp"
#include "qkov/io/safetensors.hpp"
#include "qkov/io/safetensors_index.hpp"
#include "qkov/io/tensor_block.hpp"
#include "error_text.hpp"
#include "shared_dir.hpp"

namespace fs = std::filesystem;
using qkov::io::model_file_error;
using qkov::io::safetensors_file;

namespace {

fs::path scratch(const std::string& name)
{
    const auto dir = fs::temp_directory_path() / ("qkov-safetensors-tests-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    return dir / name;
}

/// A file with an 8-byte header length `n`, then `header`, then `data` bytes.
fs::path write_raw(const std::string& name, std::uint64_t n, const std::string& header, std::size_t data_bytes)
{
    const auto path = scratch(name);
    std::ofstream out(path, std::ios::binary);
    char len[8];
    std::memcpy(len, &n, 8);
    out.write(len, 8);
    out << header;
    out << std::string(data_bytes, '\0');
    return path;
}

fs::path write_file(const std::string& name, const std::string& header, std::size_t data_bytes)
{
    return write_raw(name, header.size(), header, data_bytes);
}

/// The message of the error reading `path` throws (fails the test when it throws none).
std::string error_of(const fs::path& path)
{
    try {
        safetensors_file f(path);
    } catch (const model_file_error& e) {
        return e.what();
    }
    BOOST_FAIL("no error for " + path.string());
    return {};
}

using qkov::test::contains;

} // namespace

BOOST_AUTO_TEST_CASE(reads_the_llama_fixture_header_as_reference_json_lists_it)
{
    const auto dir = qkov::test::shared_dir_or_skip("fixtures/models/llama");
    if (dir.empty()) return;
    safetensors_file f(dir / "model.safetensors");
    const auto* q = f.find("model.layers.1.self_attn.k_proj.weight");
    BOOST_REQUIRE(q != nullptr);
    BOOST_TEST(q->shape == (std::vector<std::size_t>{64, 128}));
    BOOST_TEST(qkov::io::dtype_name(q->dtype) == "F32");
    BOOST_TEST(f.find("lm_head.weight") != nullptr);
    BOOST_TEST(f.find("no.such.tensor") == nullptr);
    BOOST_TEST(f.names().size() == 21u);  // embed, lm_head, norm + 2 layers x 9 (README layout table)
}

BOOST_AUTO_TEST_CASE(bf16_is_the_upper_half_of_float32)
{
    const auto dir = qkov::test::shared_dir_or_skip("fixtures/models");
    if (dir.empty()) return;
    safetensors_file f32(dir / "llama" / "model.safetensors"), b16(dir / "llama_bf16" / "model.safetensors");
    const auto* a = f32.find("model.layers.0.self_attn.q_proj.weight");
    const auto* b = b16.find("model.layers.0.self_attn.q_proj.weight");
    BOOST_REQUIRE(a && b);
    BOOST_TEST(qkov::io::dtype_name(b->dtype) == "BF16");
    // The bf16 value, widened, is the float32 whose upper 16 bits are the stored ones.
    for (std::size_t i = 0; i < 64; ++i) {
        std::uint16_t bits;
        std::memcpy(&bits, b->bytes.data() + 2 * i, 2);
        const std::uint32_t wide = std::uint32_t{bits} << 16;
        float expected;
        std::memcpy(&expected, &wide, 4);
        BOOST_TEST(b->at(i) == static_cast<double>(expected));
        BOOST_TEST(std::abs(b->at(i) - a->at(i)) <= std::abs(a->at(i)) * 0x1p-8);  // one bf16 rounding
    }
}

BOOST_AUTO_TEST_CASE(fp16_converts_exactly)
{
    // 0x3C00 = 1, 0xC000 = -2, 0x0001 = 2^-24 (smallest subnormal), 0x7BFF = 65504.
    const std::string h = R"({"t":{"dtype":"F16","shape":[4],"data_offsets":[0,8]}})";
    const auto path = scratch("fp16.safetensors");
    {
        std::ofstream out(path, std::ios::binary);
        const std::uint64_t n = h.size();
        out.write(reinterpret_cast<const char*>(&n), 8);
        out << h;
        const std::uint16_t v[4] = {0x3C00, 0xC000, 0x0001, 0x7BFF};
        out.write(reinterpret_cast<const char*>(v), 8);
    }
    safetensors_file f(path);
    const auto* t = f.find("t");
    BOOST_REQUIRE(t);
    BOOST_TEST(t->at(0) == 1.0);
    BOOST_TEST(t->at(1) == -2.0);
    BOOST_TEST(t->at(2) == 0x1p-24);
    BOOST_TEST(t->at(3) == 65504.0);
}

BOOST_AUTO_TEST_CASE(trailing_bytes_after_the_last_tensor_are_allowed)
{
    const auto p = write_file("trailing.safetensors", R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})", 24);
    safetensors_file f(p);
    BOOST_TEST(f.find("a")->elements() == 2u);
}

BOOST_AUTO_TEST_CASE(header_length_beyond_the_file)
{
    BOOST_TEST(contains(error_of(write_raw("long.safetensors", 5000, "{}", 0)), "runs past the end of the file"));
}

BOOST_AUTO_TEST_CASE(header_length_absurdly_large)
{
    BOOST_TEST(contains(error_of(write_raw("huge.safetensors", std::uint64_t{1} << 62, "{}", 0)), "absurdly large"));
}

BOOST_AUTO_TEST_CASE(file_shorter_than_the_length_field)
{
    const auto p = scratch("tiny.safetensors");
    std::ofstream(p, std::ios::binary) << "abc";
    BOOST_TEST(contains(error_of(p), "too short"));
}

BOOST_AUTO_TEST_CASE(header_not_json)
{
    BOOST_TEST(contains(error_of(write_file("notjson.safetensors", "{\"a\": [1, 2", 0)), "not valid JSON"));
}

BOOST_AUTO_TEST_CASE(header_not_an_object)
{
    BOOST_TEST(contains(error_of(write_file("array.safetensors", "[1, 2, 3]", 0)), "not a JSON object"));
}

BOOST_AUTO_TEST_CASE(header_nested_without_end)
{
    BOOST_TEST(contains(error_of(write_file("deep.safetensors", std::string(100000, '['), 0)), "nests deeper"));
}

BOOST_AUTO_TEST_CASE(offsets_past_the_end)
{
    const auto e = error_of(write_file("past.safetensors", R"({"w":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})", 8));
    BOOST_TEST(contains(e, "tensor 'w'"));
    BOOST_TEST(contains(e, "past the end of the data"));
}

BOOST_AUTO_TEST_CASE(offsets_reversed)
{
    BOOST_TEST(contains(error_of(write_file("rev.safetensors", R"({"w":{"dtype":"F32","shape":[0],"data_offsets":[8,0]}})", 8)), "reversed"));
}

BOOST_AUTO_TEST_CASE(offsets_negative)
{
    BOOST_TEST(contains(error_of(write_file("neg.safetensors", R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[-4,0]}})", 8)),
                        "data_offsets begin is negative"));
}

BOOST_AUTO_TEST_CASE(shape_disagrees_with_offsets)
{
    BOOST_TEST(contains(error_of(write_file("shape.safetensors", R"({"w":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}})", 8)),
                        "needs 12 bytes but data_offsets span 8"));
}

BOOST_AUTO_TEST_CASE(shape_product_overflows)
{
    BOOST_TEST(contains(error_of(write_file("ovf.safetensors",
                                            R"({"w":{"dtype":"F32","shape":[4294967296,4294967296,16],"data_offsets":[0,8]}})", 8)),
                        "overflows 64 bits"));
}

BOOST_AUTO_TEST_CASE(negative_dimension)
{
    BOOST_TEST(contains(error_of(write_file("negdim.safetensors", R"({"w":{"dtype":"F32","shape":[-2,-1],"data_offsets":[0,8]}})", 8)),
                        "a dimension is negative"));
}

BOOST_AUTO_TEST_CASE(unknown_dtype_is_named)
{
    BOOST_TEST(contains(error_of(write_file("i8.safetensors", R"({"w":{"dtype":"F8_E4M3","shape":[8],"data_offsets":[0,8]}})", 8)),
                        "unsupported dtype F8_E4M3"));
}

BOOST_AUTO_TEST_CASE(overlapping_tensors)
{
    const auto e = error_of(write_file("overlap.safetensors",
                                       R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})", 16));
    BOOST_TEST(contains(e, "overlap"));
}

BOOST_AUTO_TEST_CASE(duplicate_names)
{
    const auto e = error_of(write_file("dup.safetensors",
                                       R"({"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"a":{"dtype":"F32","shape":[1],"data_offsets":[4,8]}})", 8));
    BOOST_TEST(contains(e, "tensor 'a': the name appears twice"));
}

BOOST_AUTO_TEST_CASE(truncated_data)
{
    // The header promises 64 bytes; the file stops after 10.
    BOOST_TEST(contains(error_of(write_file("trunc.safetensors", R"({"w":{"dtype":"F32","shape":[16],"data_offsets":[0,64]}})", 10)),
                        "truncated"));
}

BOOST_AUTO_TEST_CASE(devices_are_refused)
{
    BOOST_TEST(contains(error_of("/dev/zero"), "not a regular file"));
}

namespace {

fs::path sharded_dir(const std::string& name, const std::string& index)
{
    const auto dir = scratch(name);
    fs::create_directories(dir);
    const std::string h = R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}})";
    const auto shard = write_file(name + "-shard.safetensors", h, 8);
    fs::copy_file(shard, dir / "model-00001-of-00001.safetensors", fs::copy_options::overwrite_existing);
    std::ofstream(dir / "model.safetensors.index.json") << index;
    return dir;
}

std::string checkpoint_error(const fs::path& p)
{
    try {
        (void)qkov::io::open_safetensors_checkpoint(p);
    } catch (const model_file_error& e) {
        return e.what();
    }
    BOOST_FAIL("no error for " + p.string());
    return {};
}

} // namespace

BOOST_AUTO_TEST_CASE(sharded_checkpoint_reads_through_its_index)
{
    const auto dir = sharded_dir("ok", R"({"metadata":{"total_size":8},"weight_map":{"a":"model-00001-of-00001.safetensors"}})");
    const auto source = qkov::io::open_safetensors_checkpoint(dir);
    BOOST_REQUIRE(source->find("a") != nullptr);
    BOOST_TEST(source->find("a")->elements() == 2u);
}

BOOST_AUTO_TEST_CASE(index_naming_a_missing_shard)
{
    const auto dir = sharded_dir("missing", R"({"weight_map":{"a":"model-00002-of-00002.safetensors"}})");
    BOOST_TEST(contains(checkpoint_error(dir), "shard 'model-00002-of-00002.safetensors' is missing"));
}

BOOST_AUTO_TEST_CASE(index_promising_a_tensor_its_shard_lacks)
{
    const auto dir = sharded_dir("lacks", R"({"weight_map":{"a":"model-00001-of-00001.safetensors","b":"model-00001-of-00001.safetensors"}})");
    BOOST_TEST(contains(checkpoint_error(dir), "tensor 'b': the index places it in shard"));
}

BOOST_AUTO_TEST_CASE(index_escaping_its_directory)
{
    const auto dir = sharded_dir("escape", R"({"weight_map":{"a":"../etc/passwd"}})");
    BOOST_TEST(contains(checkpoint_error(dir), "not a plain file name"));
}

BOOST_AUTO_TEST_CASE(pickle_checkpoint_is_refused_unopened)
{
    const auto dir = scratch("pickle");
    fs::create_directories(dir);
    std::ofstream(dir / "pytorch_model.bin") << "\x80\x02}q\x00.";
    BOOST_TEST(contains(checkpoint_error(dir), "pickle"));
    BOOST_TEST(contains(checkpoint_error(dir / "pytorch_model.bin"), "never unpickles"));
}

BOOST_AUTO_TEST_CASE(empty_directory)
{
    const auto dir = scratch("empty");
    fs::create_directories(dir);
    BOOST_TEST(contains(checkpoint_error(dir), "the directory is empty"));
}

BOOST_AUTO_TEST_CASE(a_file_truncated_while_mapped_is_an_error_not_sigbus)
{
    // 4096 float32 values (four pages); the file is cut to its first page after it was mapped.
    // Reading the mapped tensor then touched pages with no file behind them: SIGBUS ended the process.
    const auto path = write_file("shrinks.safetensors", R"({"w":{"dtype":"F32","shape":[64,64],"data_offsets":[0,16384]}})", 16384);
    const safetensors_file f(path);
    const auto* w = f.find("w");
    BOOST_REQUIRE(w != nullptr);
    std::vector<double> block(64 * 64);
    qkov::io::read_block(*w, 0, 64, 0, 64, {block.data(), 64, 1});  // whole, it reads
    fs::resize_file(path, 4096);
    std::string message = "(no error)";
    try {
        qkov::io::read_block(*w, 60, 4, 0, 64, {block.data(), 64, 1});
    } catch (const model_file_error& e) {
        message = e.what();
    }
    BOOST_TEST(contains(message, "shrinks.safetensors: the file shrank from"), message);
}
