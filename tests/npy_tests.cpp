// The .npy reader against files written byte by byte here, with values chosen by hand.
#define BOOST_TEST_MODULE qkov npy
#include <boost/test/unit_test.hpp>
#include <cstdint>
#include <cstring>
#include <filesystem>
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
