// The forward pass of a GPT-2-shaped model in float32 through qkov::forward::decoder, timed.
//
//   qkov_forward MODEL_DIR N [--detect] [--checksum FILE]
//
// Opens the model (model::open_model), converts its weights (decoder<float>), then times
// decoder::logits on N tokens, token i = (i * 7919) % V (numpy_forward.py uses the same), and
// prints the seconds of that call alone, the span numpy_forward.py prints. --detect passes
// forward::score_heads as the pattern visitor, so the time includes scoring every (layer, head)
// pattern for previous-token, duplicate-token and induction attention as it streams past; the
// best previous-token head goes to stderr so the scores are seen to exist. --checksum writes the
// logits' checksum in numpy_forward.py's format (its checksum_lines says what each line is), for
// numpy_forward.py --compare.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "qkov/forward/forward_pass.hpp"
#include "qkov/forward/head_detectors.hpp"
#include "qkov/model/layer_memory.hpp"
#include "qkov/model/open_model.hpp"

namespace {

using qkov::forward::token_id;

constexpr std::size_t token_stride = 7919;  // prime, so N < V tokens are distinct

/// The checksum numpy_forward.py's checksum_lines writes, from the same logits: "name value" lines.
void write_checksum(const std::string& path, const qkov::forward::tensor2<float>& logits)
{
    const std::size_t n = logits.shape()[0], V = logits.shape()[1];
    double sum = 0, abs_sum = 0, squares = 0, weighted = 0, abs_weighted = 0;
    for (std::size_t t = 0; t < n; ++t)
        for (std::size_t j = 0; j < V; ++j) {
            const double x = logits(t, j), w = (double((31 * t + 17 * j) % 101) - 50) / 50;
            sum += x, abs_sum += std::abs(x), squares += x * x, weighted += x * w, abs_weighted += std::abs(x * w);
        }
    std::ofstream out(path);
    if (!out) throw std::runtime_error("cannot write the checksum to " + path);
    char line[128];
    const auto put = [&](const std::string& name, double value) {
        std::snprintf(line, sizeof line, "%s %.9e\n", name.c_str(), value);
        out << line;
    };
    out << "shape " << n << ' ' << V << '\n';
    put("sum", sum), put("abs_sum", abs_sum), put("sum_squares", squares), put("weighted", weighted), put("abs_weighted", abs_weighted);
    put("rms", std::sqrt(squares / double(n * V)));
    for (const std::size_t row : std::set<std::size_t>{0, n / 2, n - 1})
        for (std::size_t column = 0; column < V; column += 4099) put("logit_" + std::to_string(row) + "_" + std::to_string(column), logits(row, column));
    if (!out.flush()) throw std::runtime_error("cannot write the checksum to " + path);
}

std::size_t parse_count(const char* text)
{
    char* end = nullptr;
    const long long value = std::strtoll(text, &end, 10);
    if (end == text || *end != '\0' || value < 1) throw std::invalid_argument(std::string("N must be a positive token count, not '") + text + "'");
    return static_cast<std::size_t>(value);
}

} // namespace

int main(int argc, char** argv)
{
    std::vector<std::string> positional;
    std::string checksum;
    bool detect = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--detect")
            detect = true;
        else if (a == "--checksum" && i + 1 < argc)
            checksum = argv[++i];
        else
            positional.push_back(a);
    }
    if (positional.size() != 2) {
        std::fprintf(stderr, "usage: qkov_forward MODEL_DIR N [--detect] [--checksum FILE]\n");
        return 2;
    }
    try {
        qkov::model::reuse_freed_layer_memory();  // as qkov inspect does: layers are read one at a time
        const std::size_t n = parse_count(positional[1].c_str());
        // The opened file (mapped) is released once the decoder holds its float32 copy of the weights.
        const auto pass = [&] { return qkov::forward::decoder<float>(qkov::model::open_model(positional[0])); }();
        const std::size_t V = pass.weights().embedding.shape()[0];
        std::vector<token_id> tokens(n);
        for (std::size_t i = 0; i < n; ++i) tokens[i] = static_cast<token_id>((i * token_stride) % V);
        std::vector<std::vector<qkov::forward::head_scores>> scores;
        const auto& c = pass.config();
        const auto visit = detect ? qkov::forward::score_heads<float>(scores, tokens, c.layers, c.heads) : qkov::forward::pattern_visitor<float>{};

        const auto start = std::chrono::steady_clock::now();
        const auto logits = pass.logits(tokens, visit);
        const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - start;

        std::printf("%.4f\n", elapsed.count());
        if (detect) {
            std::size_t best_layer = 0, best_head = 0;
            for (std::size_t l = 0; l < scores.size(); ++l)
                for (std::size_t h = 0; h < scores[l].size(); ++h)
                    if (scores[l][h].previous_token > scores[best_layer][best_head].previous_token) best_layer = l, best_head = h;
            std::fprintf(stderr, "qkov_forward: %zu heads scored; best previous-token head %zu.%zu at %.4f\n", c.layers * c.heads, best_layer, best_head,
                         scores[best_layer][best_head].previous_token);
        }
        if (!checksum.empty()) write_checksum(checksum, logits);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "qkov_forward: %s\n", e.what());
        return 1;
    }
}
