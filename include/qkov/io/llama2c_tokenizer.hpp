// llama2.c's tokenizer file (tok512.bin, tokenizer.bin): the vocabulary pieces, for decoding.
//
// Layout: int32 max_token_length, then for each of the model's vocab_size tokens: float32 score,
// int32 length, that many bytes. The file does not say how many tokens it holds, so the model's
// vocabulary size is passed in, and the file must end exactly after the last token. Every length
// must be non-negative, at most max_token_length and inside the file, checked before it is read.
//
// Decoding follows run.c: the piece after the BOS token (1) loses one leading space, and a piece
// spelled "<0xHH>" is the single raw byte HH.
#pragma once

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "qkov/io/mapped_file.hpp"
#include "qkov/io/model_file_error.hpp"

namespace qkov::io {

class llama2c_tokenizer {
public:
    static constexpr std::uint32_t bos = 1;  ///< run.c's begin-of-sequence token, which also ends a sample
    /// Largest accepted max_token_length: real vocabularies stay below a few hundred bytes.
    static constexpr std::int32_t largest_piece = 1 << 16;

    llama2c_tokenizer(const std::filesystem::path& path, std::size_t vocab_size)
    {
        const mapped_file map(path);
        const auto bytes = map.bytes();
        std::size_t at = 0;
        const auto int32_at = [&](const char* what, std::size_t token) {
            if (bytes.size() - at < 4)
                throw model_file_error(map.path(), std::string("ends inside the ") + what + " of token " + std::to_string(token) + " (" +
                                                       std::to_string(vocab_size) + " tokens expected)");
            std::int32_t v;
            std::memcpy(&v, bytes.data() + at, 4);
            at += 4;
            return v;
        };
        const std::int32_t longest = int32_at("max_token_length header", 0);
        if (longest <= 0 || longest > largest_piece)
            throw model_file_error(map.path(), "max_token_length " + std::to_string(longest) + " must be in 1 .. " + std::to_string(largest_piece));
        // Each token takes at least 8 bytes: the count is bounded by the file before reserving.
        if (vocab_size > (bytes.size() - at) / 8)
            throw model_file_error(map.path(), "too short for " + std::to_string(vocab_size) + " tokens (" + std::to_string(bytes.size()) + " bytes)");
        pieces_.reserve(vocab_size);
        for (std::size_t t = 0; t < vocab_size; ++t) {
            (void)int32_at("score", t);
            const std::int32_t length = int32_at("length", t);
            if (length < 0 || length > longest)
                throw model_file_error(map.path(), "token " + std::to_string(t) + " has length " + std::to_string(length) + ", outside 0 .. max_token_length " +
                                                       std::to_string(longest));
            if (bytes.size() - at < static_cast<std::size_t>(length))
                throw model_file_error(map.path(), "token " + std::to_string(t) + " runs past the end of the file");
            pieces_.emplace_back(reinterpret_cast<const char*>(bytes.data() + at), static_cast<std::size_t>(length));
            at += static_cast<std::size_t>(length);
        }
        if (at != bytes.size())
            throw model_file_error(map.path(), std::to_string(bytes.size() - at) + " bytes follow the last of the " + std::to_string(vocab_size) +
                                                   " tokens (a tokenizer for another vocabulary size?)");
    }

    [[nodiscard]] std::size_t size() const { return pieces_.size(); }
    [[nodiscard]] const std::string& piece(std::uint32_t token) const { return pieces_.at(checked(token)); }

    /// The text token adds after previous, as run.c prints it.
    [[nodiscard]] std::string decode(std::uint32_t previous, std::uint32_t token) const
    {
        std::string p = piece(token);
        if (previous == bos && !p.empty() && p.front() == ' ') p.erase(0, 1);
        if (p.size() == 6 && p.starts_with("<0x") && p.back() == '>' && hex(p[3]) >= 0 && hex(p[4]) >= 0)
            return std::string(1, static_cast<char>(hex(p[3]) * 16 + hex(p[4])));
        return p;
    }

    /// The text of a token sequence whose first token is the context (BOS for a sample).
    [[nodiscard]] std::string decode(const std::vector<std::uint32_t>& tokens) const
    {
        std::string text;
        for (std::size_t i = 1; i < tokens.size(); ++i) text += decode(tokens[i - 1], tokens[i]);
        return text;
    }

private:
    static int hex(char c)
    {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        return -1;
    }
    std::size_t checked(std::uint32_t token) const
    {
        if (token >= pieces_.size())
            throw std::out_of_range("qkov: token " + std::to_string(token) + " outside the tokenizer's " + std::to_string(pieces_.size()) + " pieces");
        return token;
    }
    std::vector<std::string> pieces_;
};

} // namespace qkov::io
