#include "inspect.hpp"

#include <iomanip>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>
#include <xtensor-blas/xlinalg.hpp>

#include "qkov/io/atomic_file.hpp"
#include "qkov/model/layer_memory.hpp"
#include "model_runs.hpp"
#include "model_summary.hpp"
#include "qkov/io/document_schemas.hpp"

namespace qkov::app {

namespace {

struct inspect_options {
    std::string path, json;
};

int run(const inspect_options& o)
{
    model::reuse_freed_layer_memory();  // each layer's heads reuse the previous layer's memory
    const auto model = runs::open_model(o.path);
    const auto& c = model.config();
    nlohmann::json j = model_summary(model);

    std::cout << "model:        " << o.path << "\n"
              << "architecture: " << c.architecture << " (" << j["family"].get<std::string>() << " layout)\n"
              << "format:       " << j["format"].get<std::string>() << ", dtype " << j["dtype"].get<std::string>() << "\n"
              << "geometry:     D = " << c.hidden_size << ", " << c.layers << " layers, " << c.heads << " heads, " << c.kv_heads
              << " kv heads, d = " << c.head_dim << ", V = " << c.vocab_size << "\n"
              << "embedding:    " << model.embedding_status() << "; unembedding " << model.unembedding_status() << "\n"
              << "rope:         " << (c.rope ? j["rope"].dump() : std::string("none (learned absolute positions)")) << "\n";
    if (j.contains("nope_layers")) std::cout << "nope layers:  " << j["nope_layers"].dump() << " (no RoPE: no positional encoding in their attention)\n";
    for (std::size_t l = 0; l < c.layers; ++l)
        if (c.window_at(l) != 0) {
            std::cout << "windows:      layer " << l << " onwards may attend to at most " << c.window_at(l)
                      << " keys (a sliding window; longer sequences are refused)\n";
            break;
        }
    std::cout << "\nlayer  heads  max |W_q|_F  max |W_k|_F  max |W_v|_F  max |W_o|_F  norm\n";
    nlohmann::json layers = nlohmann::json::array();
    for (std::size_t l = 0; l < c.layers; ++l) {
        const auto lw = model.layer(l);  // loads and validates every head of the layer
        double fq = 0, fk = 0, fv = 0, fo = 0;
        for (const auto& h : lw.heads) {
            fq = std::max(fq, static_cast<double>(xt::linalg::norm(h.w_q)));
            fk = std::max(fk, static_cast<double>(xt::linalg::norm(h.w_k)));
            fv = std::max(fv, static_cast<double>(xt::linalg::norm(h.w_v)));
            fo = std::max(fo, static_cast<double>(xt::linalg::norm(h.w_o)));
        }
        const char* norm = lw.norm.kind == io::norm_kind::layer_norm ? "LayerNorm" : "RMSNorm";
        std::cout << std::setw(5) << l << std::setw(7) << lw.heads.size() << std::fixed << std::setprecision(4) << std::setw(13) << fq << std::setw(13) << fk
                  << std::setw(13) << fv << std::setw(13) << fo << "  " << norm << (c.rope && !c.rope_at(l) ? "  NoPE" : "") << "\n";
        layers.push_back({{"layer", l},
                          {"heads", lw.heads.size()},
                          {"max_frob", {{"W_q", fq}, {"W_k", fk}, {"W_v", fv}, {"W_o", fo}}},
                          {"norm", norm},
                          {"rope", c.rope_at(l).has_value()}});
    }
    j["per_layer"] = layers;
    j["schema"] = schemas::inspect;
    if (!o.json.empty()) io::write_file_atomically(o.json, j.dump(2) + "\n");
    return 0;
}

} // namespace

subcommand add_inspect(CLI::App& app)
{
    auto options = std::make_shared<inspect_options>();
    auto* command = app.add_subcommand("inspect", "Architecture, format, geometry and every attention head of a model (directory, .safetensors, .gguf, llama2.c .bin)");
    command->add_option("PATH", options->path, "A model directory, a .safetensors, .gguf or llama2.c .bin file")->required();
    command->add_option("--json", options->json, "Also write the summary as JSON to this file");
    return {command, [options] { return run(*options); }};
}

} // namespace qkov::app
