// Token ids as text, the calibration input of `qkov scan --calibrate FILE`: one sequence per line,
// decimal ids separated by spaces or tabs, blank lines and lines starting with '#' skipped. The
// bytes are the user's, so every rule is checked and named: nothing but digits and blanks, every id
// below the vocabulary, no sequence longer than the model's context, and the file and the ids read
// bounded before anything is allocated for them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace qkov::io {

/// A token-id text that breaks a rule; the message names the file, the line and the rule (a bad
/// argument of the user's: Python raises it as ValueError).
struct token_id_text_error : std::invalid_argument {
    using std::invalid_argument::invalid_argument;
};

struct token_id_limits {
    std::size_t vocabulary = 0;             ///< every id must be below this
    std::size_t context = 0;                ///< the longest sequence (0: no limit)
    std::size_t largest_file = 64u << 20;   ///< bytes
    std::size_t most_tokens = 1u << 20;     ///< ids in the whole file
    std::optional<std::size_t> bos = std::nullopt;  ///< a sequence that starts with it holds context + 1 ids: BOS is not put first again

    /// The longest `ids` may be: the context, one more when it starts with BOS.
    [[nodiscard]] std::size_t longest(const std::vector<std::size_t>& ids) const
    {
        return context + (bos && !ids.empty() && ids.front() == *bos ? 1 : 0);
    }
};

/// The sequences of `text` (named `name` in errors).
inline std::vector<std::vector<std::size_t>> parse_token_id_text(std::string_view text, const std::string& name, const token_id_limits& limits)
{
    const auto fail = [&](std::size_t line, const std::string& what) {
        throw token_id_text_error("qkov: " + name + (line ? ", line " + std::to_string(line) : std::string()) + ": " + what);
    };
    if (limits.vocabulary == 0) fail(0, "the model has no vocabulary to check token ids against");
    if (text.size() > limits.largest_file) fail(0, std::to_string(text.size()) + " bytes, more than the " + std::to_string(limits.largest_file) + " read");
    std::vector<std::vector<std::size_t>> sequences;
    std::size_t total = 0, line = 0, at = 0;
    while (at < text.size()) {
        ++line;
        std::size_t end = text.find('\n', at);
        if (end == std::string_view::npos) end = text.size();
        std::string_view row = text.substr(at, end - at);
        at = end + 1;
        if (!row.empty() && row.back() == '\r') row.remove_suffix(1);
        if (!row.empty() && row.front() == '#') continue;
        std::vector<std::size_t> ids;
        for (std::size_t i = 0; i < row.size();) {
            const char c = row[i];
            if (c == ' ' || c == '\t') {
                ++i;
                continue;
            }
            if (c < '0' || c > '9') {
                // Built piece by piece (g++ 12 warns, -Wrestrict, on "'" + std::string(1, c)); a byte
                // that is not printable is named by its value, never written to the terminal.
                const auto byte = static_cast<unsigned char>(c);
                std::string what;
                if (byte >= 0x20 && byte < 0x7f) what.append(1, '\'').append(1, c).append(1, '\'');
                else what.append("byte ").append(std::to_string(byte));
                fail(line, what.append(" is not a digit: token ids are decimal numbers separated by spaces"));
            }
            std::size_t id = 0;
            for (; i < row.size() && row[i] >= '0' && row[i] <= '9'; ++i) {
                const auto digit = static_cast<std::size_t>(row[i] - '0');
                if (id > (std::numeric_limits<std::size_t>::max() - digit) / 10) fail(line, "a token id does not fit in 64 bits");
                id = id * 10 + digit;
            }
            if (id >= limits.vocabulary) fail(line, "token id " + std::to_string(id) + " is not below the vocabulary size " + std::to_string(limits.vocabulary));
            if (++total > limits.most_tokens) fail(line, "more than " + std::to_string(limits.most_tokens) + " token ids");
            ids.push_back(id);
        }
        if (ids.empty()) continue;
        if (limits.context && ids.size() > limits.longest(ids))
            fail(line, std::to_string(ids.size()) + " tokens, more than the model's context of " + std::to_string(limits.longest(ids)));
        sequences.push_back(std::move(ids));
    }
    if (sequences.empty()) fail(0, "no token ids (one sequence per line, decimal ids separated by spaces)");
    return sequences;
}

/// Token sequences given in memory (a Python list), held to the rules the text is: each sequence
/// non-empty, within the context, every id below the vocabulary, at most most_tokens ids in all.
inline void check_token_sequences(const std::vector<std::vector<std::size_t>>& sequences, const token_id_limits& limits)
{
    const auto fail = [](std::size_t s, const std::string& what) {
        throw token_id_text_error("qkov: calibration sequence " + std::to_string(s) + ": " + what);
    };
    if (sequences.empty()) throw token_id_text_error("qkov: no calibration sequences");
    std::size_t total = 0;
    for (std::size_t s = 0; s < sequences.size(); ++s) {
        const auto& ids = sequences[s];
        if (ids.empty()) fail(s, "empty");
        if (limits.context && ids.size() > limits.longest(ids))
            fail(s, std::to_string(ids.size()) + " tokens, more than the model's context of " + std::to_string(limits.longest(ids)));
        for (const std::size_t id : ids)
            if (id >= limits.vocabulary) fail(s, "token id " + std::to_string(id) + " is not below the vocabulary size " + std::to_string(limits.vocabulary));
        if ((total += ids.size()) > limits.most_tokens) fail(s, "more than " + std::to_string(limits.most_tokens) + " token ids in all");
    }
}

/// The longest sequence a model takes once BOS is put first: its declared context, less BOS's
/// position where it has one (0: the model declares none).
inline std::size_t calibration_context(std::size_t max_positions, bool has_bos)
{
    return max_positions == 0 ? 0 : max_positions - (has_bos && max_positions > 1 ? 1 : 0);
}

/// The sequences of the file at `path`.
inline std::vector<std::vector<std::size_t>> read_token_id_text(const std::string& path, const token_id_limits& limits)
{
    // Checked before opening: opening a FIFO blocks until something writes to it (forever, from a
    // Python call holding the GIL), and a directory opens and reports a size of 2^63 - 1.
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (status.type() == std::filesystem::file_type::not_found) throw token_id_text_error("qkov: " + path + ": no such file");
    if (status.type() != std::filesystem::file_type::regular)
        throw token_id_text_error("qkov: " + path + ": not a regular file (" +
                                  (status.type() == std::filesystem::file_type::directory ? std::string("a directory") : std::string("a FIFO, socket or device")) +
                                  "): token ids are read from a file");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw token_id_text_error("qkov: " + path + ": cannot be opened");
    in.seekg(0, std::ios::end);
    const auto size = in.tellg();
    if (size < 0) throw token_id_text_error("qkov: " + path + ": cannot be read");
    if (static_cast<std::uint64_t>(size) > limits.largest_file)
        throw token_id_text_error("qkov: " + path + ": " + std::to_string(static_cast<std::uint64_t>(size)) + " bytes, more than the " +
                                  std::to_string(limits.largest_file) + " read");
    in.seekg(0);
    std::string text(static_cast<std::size_t>(size), '\0');
    if (!in.read(text.data(), size)) throw token_id_text_error("qkov: " + path + ": cannot be read");
    return parse_token_id_text(text, path, limits);
}

} // namespace qkov::io
