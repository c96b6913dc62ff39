// The .npy reader against files written byte by byte here, with values chosen by hand.
#define BOOST_TEST_MODULE qkov npy
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <sys/stat.h>
#include <fstream>
#include <string>
#include <vector>

#include "qkov/io/npy.hpp"

using namespace qkov::io;

namespace {

std::string temp_path(const std::string& name)
{
    return (std::filesystem::temp_directory_path() / ("qkov_npy_test_" + name + ".npy")).string();
}

/// A version 1.0 file: magic, version, header length, header padded with spaces to 64 bytes, data.
std::string write_npy(const std::string& name, const std::string& dict, const std::vector<unsigned char>& data,
                      unsigned major = 1)
{
    std::string header = dict;
    const std::size_t prefix = major == 1 ? 10 : 12;
    while ((prefix + header.size() + 1) % 64 != 0) header += ' ';
    header += '\n';
    std::string bytes = "\x93NUMPY";
    bytes += static_cast<char>(major);
    bytes += '\0';
    const std::size_t n = header.size();
    bytes += static_cast<char>(n & 0xFF);
    bytes += static_cast<char>((n >> 8) & 0xFF);
    if (major != 1) bytes += std::string(2, '\0');
    bytes += header;
    bytes.append(data.begin(), data.end());
    const std::string path = temp_path(name);
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
}

template <class F>
std::vector<unsigned char> little_endian(const std::vector<F>& values)
{
    std::vector<unsigned char> out(values.size() * sizeof(F));
    std::memcpy(out.data(), values.data(), out.size());  // x86-64 is little-endian
    return out;
}

std::vector<unsigned char> halves(const std::vector<std::uint16_t>& bits) { return little_endian(bits); }

template <class F>
void check_throws_with(F&& f, const std::string& fragment)
{
    try {
        f();
        BOOST_ERROR("no exception; expected one mentioning: " + fragment);
    } catch (const npy_error& e) {
        BOOST_TEST(std::string(e.what()).find(fragment) != std::string::npos, e.what() << " should mention " << fragment);
    }
}

} // namespace

BOOST_AUTO_TEST_CASE(reads_float32_float64_float16_and_bf16)
{
    const auto f4 = write_npy("f4", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }",
                              little_endian(std::vector<float>{1, 2, 3, 4, 5, 0.5f}));
    const auto a = read_npy(f4);
    BOOST_TEST(a.dtype == "float32");
    BOOST_TEST((a.shape == std::vector<std::size_t>{2, 3}));
    BOOST_TEST((a.values == std::vector<double>{1, 2, 3, 4, 5, 0.5}));

    const auto f8 = write_npy("f8", "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), }",
                              little_endian(std::vector<double>{0.1, -2.5, 1e300}), 2);
    const auto b = read_npy(f8);
    BOOST_TEST((b.values == std::vector<double>{0.1, -2.5, 1e300}));
    BOOST_TEST(b.shape_string() == "(3,)");

    // 0x3C00 = 1, 0xC000 = -2, 0x3555 = 0.333251953125 (fp16 patterns)
    const auto f2 = write_npy("f2", "{'descr': '<f2', 'fortran_order': False, 'shape': (3,), }", halves({0x3C00, 0xC000, 0x3555}));
    BOOST_TEST((read_npy(f2).values == std::vector<double>{1, -2, 0.333251953125}));

    // 0x3F80 = 1, 0x4049 = 3.140625 (bf16 patterns), stored as uint16
    const auto u2 = write_npy("u2", "{'descr': '<u2', 'fortran_order': False, 'shape': (2,), }", halves({0x3F80, 0x4049}));
    const auto c = read_npy(u2, {.uint16_is_bf16 = true});
    BOOST_TEST(c.dtype == "bfloat16");
    BOOST_TEST((c.values == std::vector<double>{1, 3.140625}));
    check_throws_with([&] { read_npy(u2); }, "'<u2'");
}

BOOST_AUTO_TEST_CASE(fortran_order_is_reordered_to_c_order)
{
    // The 2 x 3 matrix [[1, 2, 3], [4, 5, 6]] stored column by column.
    const auto path = write_npy("fortran", "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 3), }",
                                little_endian(std::vector<double>{1, 4, 2, 5, 3, 6}));
    BOOST_TEST((read_npy(path).values == std::vector<double>{1, 2, 3, 4, 5, 6}));
    // A 2 x 2 x 2 array: C element (i, j, k) is at Fortran offset i + 2j + 4k; value 100i + 10j + k.
    std::vector<double> fortran(8);
    for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j)
            for (int k = 0; k < 2; ++k) fortran[i + 2 * j + 4 * k] = 100 * i + 10 * j + k;
    const auto cube = write_npy("fortran3", "{'descr': '<f8', 'fortran_order': True, 'shape': (2, 2, 2), }", little_endian(fortran));
    BOOST_TEST((read_npy(cube).values == std::vector<double>{0, 1, 10, 11, 100, 101, 110, 111}));
}

BOOST_AUTO_TEST_CASE(bad_files_are_rejected_with_the_reason)
{
    const std::string ok_dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }";
    check_throws_with([] { read_npy(temp_path("does_not_exist")); }, "cannot open");
    {
        const auto path = temp_path("not_npy");
        std::ofstream(path, std::ios::binary) << "PK\x03\x04 this is a zip file, not npy";
        check_throws_with([&] { read_npy(path); }, "magic string");
    }
    check_throws_with([&] { read_npy(write_npy("version", ok_dict, little_endian(std::vector<float>{1, 2}), 7)); }, "version 7");
    check_throws_with([&] { read_npy(write_npy("truncated", ok_dict, little_endian(std::vector<float>{1}))); },
                      "truncated data: shape (2,) of <f4 needs 8 bytes, the file has 4");
    check_throws_with([&] { read_npy(write_npy("overlong", ok_dict, little_endian(std::vector<float>{1, 2, 3}))); },
                      "unexpected bytes after the data");
    check_throws_with([&] {
        read_npy(write_npy("bigendian", "{'descr': '>f4', 'fortran_order': False, 'shape': (2,), }", little_endian(std::vector<float>{1, 2})));
    }, "unsupported dtype '>f4'");
    check_throws_with([&] {
        read_npy(write_npy("int", "{'descr': '<i8', 'fortran_order': False, 'shape': (1,), }", little_endian(std::vector<double>{1})));
    }, "unsupported dtype '<i8'");
    check_throws_with([&] { read_npy(write_npy("noshape", "{'descr': '<f4', 'fortran_order': False, }", {})); }, "no 'shape' key");
    check_throws_with([&] {
        read_npy(write_npy("badshape", "{'descr': '<f4', 'fortran_order': False, 'shape': (2, x), }", {}));
    }, "non-integer");
    check_throws_with([&] {
        read_npy(write_npy("badorder", "{'descr': '<f4', 'fortran_order': maybe, 'shape': (2,), }", {}));
    }, "fortran_order");
    check_throws_with([&] {
        read_npy(write_npy("nan", ok_dict, little_endian(std::vector<float>{1, std::nanf("")})));
    }, "NaN at flat index 1");
    check_throws_with([&] {
        read_npy(write_npy("inf", ok_dict, little_endian(std::vector<float>{INFINITY, 1})));
    }, "infinite value at flat index 0");
    {
        // The header claims more bytes than the file holds.
        const auto path = temp_path("short_header");
        std::ofstream(path, std::ios::binary) << std::string("\x93NUMPY\x01\x00\xff\x00{'descr'", 17);
        check_throws_with([&] { read_npy(path); }, "truncated header");
    }
    const auto a = read_npy(write_npy("shape_ok", ok_dict, little_endian(std::vector<float>{1, 2})));
    require_shape(a, {2}, "table");
    check_throws_with([&] { require_shape(a, {2, 3}, "the cos/sin table"); }, "the cos/sin table must have shape (2, 3), found (2,)");
}

// Headers numpy's reader (ast.literal_eval, then exactly three keys of the right types) rejects;
// each was accepted before, and the repeated 'descr' was read as the first value where numpy
// keeps the last.
BOOST_AUTO_TEST_CASE(headers_numpy_rejects_are_rejected)
{
    const auto two_floats = little_endian(std::vector<float>{1, 2});
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2 3), }", "not separated by ','"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,,3), }", "non-integer"},
        {"{'descr': '<f4', 'fortran_order': Truex, 'shape': (2,), }", "neither True nor False"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2), }", "an integer, not the tuple"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (-2,), }", "non-integer"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (02,), }", "leading zero"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,)", "expected ',' or '}'"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), } x", "text after the dictionary"},
        {"{'descr': '<f8', 'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", "the key 'descr' appears twice"},
        {"{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'extra': 1}", "unexpected key 'extra'"},
        {"{'descr': <f4, 'fortran_order': False, 'shape': (2,), }", "'descr' is not a quoted string"},
        {"{'descr': '<f4' 'fortran_order': False, 'shape': (2,), }", "expected ',' or '}'"},
        {"{'descr': '<f4', 'fortran_order': False}", "no 'shape' key"},
        {"['descr', '<f4']", "not a dictionary"},
    };
    int k = 0;
    for (const auto& [dict, reason] : cases)
        check_throws_with([&] { read_npy(write_npy("malformed" + std::to_string(k++), dict, two_floats)); }, reason);
    // Format versions numpy does not write.
    for (const auto& [major, minor] : {std::pair{1, 1}, std::pair{2, 5}, std::pair{0, 0}, std::pair{4, 0}}) {
        auto path = write_npy("version_" + std::to_string(major) + std::to_string(minor),
                              "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", two_floats, static_cast<unsigned>(major));
        std::fstream file(path, std::ios::binary | std::ios::in | std::ios::out);
        file.seekp(7);
        file.put(static_cast<char>(minor));
        file.close();
        check_throws_with([&] { read_npy(path); }, "unsupported .npy format version " + std::to_string(major) + "." + std::to_string(minor));
    }
}

// What numpy's writer and other Python writers produce is still read.
BOOST_AUTO_TEST_CASE(header_variants_numpy_accepts_are_read)
{
    const auto two_floats = little_endian(std::vector<float>{1.5f, -2});
    for (const std::string& dict : {std::string("{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (2,)}"),
                                    std::string("{'shape': (2,), 'fortran_order': False, 'descr': '<f4'}"),
                                    std::string("  {'descr':'<f4','fortran_order':False,'shape':( 2 , ),}  "),
                                    std::string("{'descr': '<f4',\n 'fortran_order': False,\n 'shape': (2,)}")}) {
        const auto a = read_npy(write_npy("variant", dict, two_floats));
        BOOST_TEST(a.shape == std::vector<std::size_t>{2}, dict);
        BOOST_TEST(a.values == (std::vector<double>{1.5, -2}), dict);
    }
    const auto scalar = read_npy(write_npy("zero_d", "{'descr': '<f8', 'fortran_order': False, 'shape': (), }", little_endian(std::vector<double>{3.25})));
    BOOST_TEST(scalar.shape.empty());
    BOOST_TEST(scalar.values == std::vector<double>{3.25});
    const auto v2 = read_npy(write_npy("v2", "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }", two_floats, 2));
    BOOST_TEST(v2.values == (std::vector<double>{1.5, -2}));
}

// Only regular files: a FIFO would block forever and /dev/zero never ends.
BOOST_AUTO_TEST_CASE(devices_and_fifos_are_refused_by_name)
{
    check_throws_with([] { read_npy("/dev/zero"); }, "not a regular file");
    const auto fifo = temp_path("fifo");
    std::filesystem::remove(fifo);
    BOOST_REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    check_throws_with([&] { read_npy(fifo); }, "not a regular file");
    std::filesystem::remove(fifo);
    check_throws_with([] { read_npy(std::filesystem::temp_directory_path().string()); }, "not a regular file");
}

// A header that declares a huge shape is checked against the file's size before any allocation:
// (100000, 100000) float64 would be 80 GB.
BOOST_AUTO_TEST_CASE(declared_shape_is_checked_against_the_file_size_before_allocating)
{
    check_throws_with([] {
        read_npy(write_npy("huge", "{'descr': '<f8', 'fortran_order': False, 'shape': (100000, 100000), }", little_endian(std::vector<double>{1})));
    }, "truncated data: shape (100000, 100000) of <f8 needs 80000000000 bytes, the file has 8");
    check_throws_with([] {
        read_npy(write_npy("overflow", "{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", {}));
    }, "is too large");
}
