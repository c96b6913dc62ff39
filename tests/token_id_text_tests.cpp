// The token-id text of `qkov scan --calibrate FILE` (io/token_id_text.hpp): what it accepts, and a
// named error for every rule a user's bytes can break.
#define BOOST_TEST_MODULE token_id_text
#include <boost/test/unit_test.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "qkov/io/token_id_text.hpp"

using namespace qkov::io;

namespace {

const token_id_limits small{.vocabulary = 100, .context = 4};

/// The message of the error parsing `text` raises ("" when it parses).
std::string error_of(const std::string& text, const token_id_limits& limits = small)
{
    try {
        (void)parse_token_id_text(text, "ids.txt", limits);
    } catch (const token_id_text_error& e) {
        return e.what();
    }
    return "";
}

} // namespace

BOOST_AUTO_TEST_CASE(lines_are_sequences_of_decimal_ids)
{
    const auto s = parse_token_id_text("# a comment\n1 2\t3\r\n\n   \n99 0\n7", "ids.txt", small);
    BOOST_TEST(s.size() == 3u);
    BOOST_TEST((s[0] == std::vector<std::size_t>{1, 2, 3}));
    BOOST_TEST((s[1] == std::vector<std::size_t>{99, 0}));
    BOOST_TEST((s[2] == std::vector<std::size_t>{7}));
}

// BOS is put first only where a sequence lacks it, so a sequence that starts with BOS may hold one
// id more than the context left after BOS: exactly the model's context, not refused.
BOOST_AUTO_TEST_CASE(a_sequence_starting_with_bos_may_fill_the_context)
{
    const token_id_limits with_bos{.vocabulary = 100, .context = 4, .bos = 1};
    BOOST_TEST(parse_token_id_text("1 2 3 4 5\n", "ids.txt", with_bos).front().size() == 5u);
    BOOST_TEST(error_of("2 3 4 5 6\n", with_bos) == "qkov: ids.txt, line 1: 5 tokens, more than the model's context of 4");
    BOOST_TEST(error_of("1 2 3 4 5 6\n", with_bos) == "qkov: ids.txt, line 1: 6 tokens, more than the model's context of 5");
    check_token_sequences({{1, 2, 3, 4, 5}}, with_bos);
    BOOST_CHECK_THROW(check_token_sequences({{2, 3, 4, 5, 6}}, with_bos), token_id_text_error);
}

BOOST_AUTO_TEST_CASE(every_broken_rule_is_named_with_its_line)
{
    BOOST_TEST(error_of("1 2\n3 -4\n") == "qkov: ids.txt, line 2: '-' is not a digit: token ids are decimal numbers separated by spaces");
    BOOST_TEST(error_of(std::string("1\0", 2)) == "qkov: ids.txt, line 1: byte 0 is not a digit: token ids are decimal numbers separated by spaces");
    BOOST_TEST(error_of("\xff") == "qkov: ids.txt, line 1: byte 255 is not a digit: token ids are decimal numbers separated by spaces");
    BOOST_TEST(error_of("1,2\n") == "qkov: ids.txt, line 1: ',' is not a digit: token ids are decimal numbers separated by spaces");
    BOOST_TEST(error_of("1 100\n") == "qkov: ids.txt, line 1: token id 100 is not below the vocabulary size 100");
    BOOST_TEST(error_of("18446744073709551616\n") == "qkov: ids.txt, line 1: a token id does not fit in 64 bits");
    BOOST_TEST(error_of("1 2 3 4 5\n") == "qkov: ids.txt, line 1: 5 tokens, more than the model's context of 4");
    BOOST_TEST(error_of("# nothing\n\n") == "qkov: ids.txt: no token ids (one sequence per line, decimal ids separated by spaces)");
    BOOST_TEST(error_of("") == "qkov: ids.txt: no token ids (one sequence per line, decimal ids separated by spaces)");
    BOOST_TEST(error_of("1\n", {.vocabulary = 0}) == "qkov: ids.txt: the model has no vocabulary to check token ids against");
    BOOST_TEST(error_of("1 2\n3 4\n", {.vocabulary = 10, .most_tokens = 3}) == "qkov: ids.txt, line 2: more than 3 token ids");
    BOOST_TEST(error_of("1 2\n", {.vocabulary = 10, .largest_file = 3}) == "qkov: ids.txt: 4 bytes, more than the 3 read");
    // The largest id that fits is still checked against the vocabulary, not wrapped.
    BOOST_TEST(error_of("18446744073709551615\n") == "qkov: ids.txt, line 1: token id 18446744073709551615 is not below the vocabulary size 100");
}

BOOST_AUTO_TEST_CASE(files_are_read_whole_and_bounded_before_reading)
{
    const auto path = std::filesystem::temp_directory_path() / "qkov-token-ids-test.txt";
    {
        std::ofstream out(path);
        out << "5 6 7\n8\n";
    }
    const auto s = read_token_id_text(path.string(), small);
    BOOST_TEST(s.size() == 2u);
    BOOST_CHECK_THROW(read_token_id_text(path.string(), {.vocabulary = 10, .largest_file = 4}), token_id_text_error);
    BOOST_CHECK_THROW(read_token_id_text((path.string() + ".absent"), small), token_id_text_error);
    std::filesystem::remove(path);
}

// What is not a regular file is refused by name before it is opened: a FIFO would block the open
// until something wrote to it, a directory would report a size of 2^63 - 1.
BOOST_AUTO_TEST_CASE(a_directory_or_fifo_is_refused_before_it_is_opened)
{
    const auto message = [](const std::string& path) {
        try {
            (void)read_token_id_text(path, small);
        } catch (const token_id_text_error& e) {
            return std::string(e.what());
        }
        return std::string("(no error)");
    };
    const auto directory = std::filesystem::temp_directory_path() / "qkov-token-ids-dir";
    std::filesystem::create_directories(directory);
    BOOST_TEST(message(directory.string()) == "qkov: " + directory.string() + ": not a regular file (a directory): token ids are read from a file");
    const auto fifo = std::filesystem::temp_directory_path() / "qkov-token-ids-fifo";
    std::filesystem::remove(fifo);
    BOOST_TEST_REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    BOOST_TEST(message(fifo.string()) == "qkov: " + fifo.string() + ": not a regular file (a FIFO, socket or device): token ids are read from a file");
    std::filesystem::remove(fifo);
    BOOST_TEST(message((directory / "absent.txt").string()) == "qkov: " + (directory / "absent.txt").string() + ": no such file");
}
