#include "scan.hpp"

#include <chrono>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "qkov/io/atomic_file.hpp"
#include "qkov/model/layer_memory.hpp"
#include "qkov/model/open_model.hpp"
#include "qkov/scan/scan_model.hpp"

namespace qkov::app {

namespace {

struct scan_cli_options {
    std::string path, json, layers;
};

/// "A-B" or "A" (inclusive, 0-based) into the scan's layer range; anything else is a named error.
void parse_layers(const std::string& text, scan::scan_options& o)
{
    const auto bad = [&] { return std::invalid_argument("qkov: --layers '" + text + "': expected A-B or A (0-based layer numbers, A <= B)"); };
    const auto number = [&](const std::string& s) {
        if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 9) throw bad();
        return static_cast<std::size_t>(std::stoul(s));
    };
    const auto dash = text.find('-');
    o.first_layer = number(text.substr(0, dash));
    o.last_layer = dash == std::string::npos ? o.first_layer : number(text.substr(dash + 1));
    if (*o.last_layer < o.first_layer) throw bad();
}

nlohmann::json values(const scan::vector& v) { return nlohmann::json(std::vector<double>(v.begin(), v.end())); }

nlohmann::json optional_number(const std::optional<double>& x) { return x ? nlohmann::json(*x) : nlohmann::json(nullptr); }

nlohmann::json head_json(const scan::head_metrics& h)
{
    std::string driver = h.qk.driver == h.ov.driver ? h.qk.driver : "qk: " + h.qk.driver + "; ov: " + h.ov.driver;
    return {{"layer", h.layer},
            {"head", h.head},
            {"kv_head", h.kv_head},
            {"rank_q", h.q.rank},
            {"rank_k", h.k.rank},
            {"cond_q", optional_number(h.q.condition)},
            {"cond_k", optional_number(h.k.condition)},
            {"qk_singular_values", values(h.qk.singular_values)},
            {"ov_singular_values", values(h.ov.singular_values)},
            {"copying_score", optional_number(h.copying_score)},
            {"ov_identity_distance", h.ov_identity_distance},
            {"ov_identity_floor", h.ov_identity_floor},
            {"reconstruction_residual", {{"qk", h.qk.residual}, {"ov", h.ov.residual}}},
            {"svd_driver", driver},
            {"labels", nlohmann::json::array()},
            {"evidence", nlohmann::json::object()}};
}

int run(const scan_cli_options& o)
{
    model::reuse_freed_layer_memory();
    const auto model = model::open_model(o.path);
    const auto& c = model.config();
    scan::scan_options options;
    if (!o.layers.empty()) parse_layers(o.layers, options);
    const auto start = std::chrono::steady_clock::now();
    options.on_layer = [&](std::size_t l, const std::vector<scan::head_metrics>& heads) {
        double worst = 0, top_cond = 0;
        for (const auto& h : heads) {
            worst = std::max({worst, h.qk.residual, h.ov.residual});
            top_cond = std::max({top_cond, h.q.condition.value_or(0.0), h.k.condition.value_or(0.0)});
        }
        const std::chrono::duration<double> t = std::chrono::steady_clock::now() - start;
        std::cerr << "qkov scan: layer " << l << " of " << c.layers << ": " << heads.size() << " heads, max cond " << std::setprecision(4) << top_cond
                  << ", max residual " << worst << " (" << std::fixed << std::setprecision(1) << t.count() << " s)" << std::defaultfloat << "\n";
    };
    std::cerr << "qkov scan: " << o.path << ": " << c.layers << " layers x " << c.heads << " heads, D = " << c.hidden_size << ", d = " << c.head_dim
              << (model.embedding_status() == "present" && model.unembedding_status() != "absent" ? ", copying scores from W_E^T W_U"
                                                                                                 : ", no copying score (embedding " + model.embedding_status() +
                                                                                                       ", unembedding " + model.unembedding_status() + ")")
              << "\n";
    const auto r = scan::scan_model(model, options);

    std::size_t rank_deficient = 0, fallbacks = 0;
    double worst = 0;
    for (const auto& h : r.heads) {
        rank_deficient += (h.q.rank < c.head_dim || h.k.rank < c.head_dim) ? 1 : 0;
        fallbacks += (h.qk.driver != "gesdd" || h.ov.driver != "gesdd") ? 1 : 0;
        worst = std::max({worst, h.qk.residual, h.ov.residual});
    }
    std::cout << r.heads.size() << " heads scanned, " << r.composition.size() << " composition pairs; " << rank_deficient
              << " heads with rank-deficient W_q or W_k; max reconstruction residual " << worst << "; " << fallbacks << " heads needed the gesvd fallback\n";

    if (!o.json.empty()) {
        nlohmann::json j;
        j["model"] = {{"path", o.path},         {"architecture", c.architecture}, {"format", model.source().format()},
                      {"hidden_size", c.hidden_size}, {"layers", c.layers},       {"heads", c.heads},
                      {"kv_heads", c.kv_heads}, {"head_dim", c.head_dim},         {"vocab_size", c.vocab_size},
                      {"embedding", model.embedding_status()}, {"unembedding", model.unembedding_status()},
                      {"attention_biases", model.has_attention_biases()}, {"qk_norm", model.has_qk_norm()}};
        j["scanned_layers"] = {options.first_layer, options.last_layer.value_or(c.layers - 1)};
        j["conventions"] = {
            {"rank", "singular values of the D x d W_Q (W_K) above max(D, d) * eps(float64) * sigma_max; cond null below full rank"},
            {"circuits", "QK = W_Q W_K^T, OV = W_V W_O (row convention), spectra from thin QRs of the factors and the SVD of the d x d core"},
            {"copying_score", "Re(sum lambda) / sum |lambda| over the eigenvalues of the d x d product W_O W_U W_E W_V; null without W_E or W_U, or when they all vanish"},
            {"composition", "TransformerLens: ||W_A W_B||_F / (||W_A||_F ||W_B||_F), W_A = OV of the source, W_B = QK (q), QK^T (k) or OV (v) of the target"},
            {"t3_singular_values", "singular values of W_V(target) W_O(source) in the column convention (d x d)"}};
        nlohmann::json heads = nlohmann::json::array();
        for (const auto& h : r.heads) heads.push_back(head_json(h));
        j["heads"] = std::move(heads);
        nlohmann::json composition = nlohmann::json::array();
        for (const auto& p : r.composition)
            composition.push_back({{"source", {p.source_layer, p.source_head}},
                                   {"target", {p.target_layer, p.target_head}},
                                   {"q", p.q},
                                   {"k", p.k},
                                   {"v", p.v},
                                   {"t3_singular_values", values(p.t3_singular_values)}});
        j["composition"] = std::move(composition);
        nlohmann::json edges = nlohmann::json::array();
        constexpr std::size_t per_source = 3;
        for (const auto& h : r.heads) {
            nlohmann::json e = {{"source", {h.layer, h.head}}};
            for (const auto& [name, score] : {std::pair{"q", &scan::composition_score::q}, {"k", &scan::composition_score::k}, {"v", &scan::composition_score::v}}) {
                nlohmann::json targets = nlohmann::json::array();
                for (const auto* p : scan::strongest_targets(r.composition, h.layer, h.head, score, per_source))
                    targets.push_back({{"target", {p->target_layer, p->target_head}}, {"score", (*p).*score}});
                e[name] = std::move(targets);
            }
            edges.push_back(std::move(e));
        }
        j["strongest_edges"] = std::move(edges);
        io::write_file_atomically(o.json, j.dump(1) + "\n");
    }
    return 0;
}

} // namespace

subcommand add_scan(CLI::App& app)
{
    auto options = std::make_shared<scan_cli_options>();
    auto* command = app.add_subcommand("scan", "Every attention head's weight metrics and the composition between heads (directory, .safetensors, .gguf)");
    command->add_option("PATH", options->path, "A model directory, a .safetensors file or a .gguf file")->required();
    command->add_option("--json", options->json, "Write every metric as JSON to this file");
    command->add_option("--layers", options->layers, "Scan only layers A-B (0-based, inclusive); composition stays within them");
    return {command, [options] { return run(*options); }};
}

} // namespace qkov::app
