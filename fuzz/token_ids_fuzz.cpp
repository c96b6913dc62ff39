// Any bytes as a --calibrate file of token ids: either a token_id_text_error or sequences that
// keep every promise of the reader (ids below the vocabulary, none empty, none past the context,
// no more ids than the limit).
#include <cstdlib>

#include "fuzz_file.hpp"
#include "qkov/io/token_id_text.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size)
{
    const auto path = fuzz_input_file(data, size, ".txt");
    const qkov::io::token_id_limits limits{.vocabulary = 1000, .context = 16, .largest_file = 1 << 16, .most_tokens = 256};
    try {
        const auto sequences = qkov::io::read_token_id_text(path.string(), limits);
        std::size_t total = 0;
        if (sequences.empty()) std::abort();
        for (const auto& s : sequences) {
            if (s.empty() || s.size() > limits.context) std::abort();
            for (const auto id : s)
                if (id >= limits.vocabulary) std::abort();
            total += s.size();
        }
        if (total > limits.most_tokens) std::abort();
    } catch (const qkov::io::token_id_text_error&) {
    }
    return 0;
}
