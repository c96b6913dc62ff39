// qkov.Model: a model file's configuration and its weights in TransformerLens' row convention.
//
// The library keeps each head in the column convention (model/head_weights.hpp: W_q is d x D,
// q = W_q x); TransformerLens writes q = x W_Q with W_Q = W_q^T (D x d), W_O = W_o^T (d x D). The
// arrays here are stacked per layer as TransformerLens' HookedTransformer holds them:
// W_Q [n_heads, d_model, d_head], W_K and W_V [n_kv_heads, d_model, d_head], W_O [n_heads, d_head, d_model].
#include "bindings.hpp"

#include <filesystem>
#include <optional>
#include <vector>

#include <pybind11/stl.h>

#include "qkov/model/model_summary.hpp"
#include "model_runs.hpp"

namespace qkov::python {

namespace {

model::layer_weights read_layer(const model_handle& m, std::size_t layer)
{
    const py::gil_scoped_release release;
    return m.model().layer(layer);
}

/// The heads' matrix `field` (column convention, rows x cols) of the chosen heads as
/// [heads, cols, rows]: each transposed into the row convention.
py::array_t<double> stacked(const std::vector<const model::head_weights*>& heads, model::matrix model::head_weights::*field)
{
    const auto& first = heads.front()->*field;
    const std::size_t rows = first.shape()[0], cols = first.shape()[1];
    py::array_t<double> out({heads.size(), cols, rows});
    auto a = out.mutable_unchecked<3>();
    for (std::size_t h = 0; h < heads.size(); ++h) {
        const auto& w = heads[h]->*field;
        for (std::size_t i = 0; i < rows; ++i)
            for (std::size_t j = 0; j < cols; ++j) a(h, j, i) = w(i, j);
    }
    return out;
}

/// The biases `field` of the chosen heads as [heads, d_head], or None when the model has none.
py::object stacked_bias(const std::vector<const model::head_weights*>& heads, model::vector model::head_weights::*field)
{
    if ((heads.front()->*field).size() == 0) return py::none();
    const std::size_t d = (heads.front()->*field).size();
    py::array_t<double> out({heads.size(), d});
    auto a = out.mutable_unchecked<2>();
    for (std::size_t h = 0; h < heads.size(); ++h)
        for (std::size_t i = 0; i < d; ++i) a(h, i) = (heads[h]->*field)(i);
    return out;
}

std::vector<const model::head_weights*> query_heads(const model::layer_weights& lw)
{
    std::vector<const model::head_weights*> out;
    for (const auto& h : lw.heads) out.push_back(&h);
    return out;
}

/// One head per key/value head: the first query head that reads it (GQA shares it among
/// n_heads / n_kv_heads query heads, whose copies are equal).
std::vector<const model::head_weights*> kv_heads(const model::layer_weights& lw, std::size_t n_kv)
{
    std::vector<const model::head_weights*> out(n_kv, nullptr);
    for (const auto& h : lw.heads)
        if (h.kv_head < n_kv && out[h.kv_head] == nullptr) out[h.kv_head] = &h;
    for (const auto* h : out)
        if (h == nullptr) throw std::logic_error("qkov: a key/value head that no query head reads");
    return out;
}

py::object optional_matrix(std::optional<model::matrix> m, bool transpose)
{
    if (!m) return py::none();
    if (!transpose) return to_numpy(*m);
    const model::matrix t = xt::transpose(*m);
    return to_numpy(t);
}

const char* const row_convention =
    "TransformerLens' row convention: q = x W_Q + b_Q, a head's output z W_O; float64 copies of the stored weights.";

} // namespace

model_pointer open_model(const py::object& path)
{
    const std::string text = py::str(py::module_::import("os").attr("fspath")(path));
    const py::gil_scoped_release release;
    return std::make_shared<model_handle>(text, runs::open_model(text));
}

model_pointer model_argument(const py::object& path_or_model)
{
    if (py::isinstance<model_handle>(path_or_model)) return path_or_model.cast<model_pointer>();
    return open_model(path_or_model);
}

py::object to_python(const nlohmann::json& j) { return py::module_::import("json").attr("loads")(j.dump()); }

void bind_model(py::module_& m)
{
    py::class_<model_handle, model_pointer> model(m, "Model",
                                                  "A model file opened by qkov (Hugging Face directory, .safetensors, .gguf or llama2.c .bin). "
                                                  "Weights are read one layer at a time when asked for; every array is in "
                                                  "TransformerLens' row convention (q = x W_Q + b_Q), as float64.");
    model.def_property_readonly("path", &model_handle::path, "The path the model was opened from, as the documents name it.")
        .def_property_readonly(
            "config", [](const model_handle& h) { return to_python(model::model_summary(h.model())); },
            "The model's summary as a dict: the fields of `qkov inspect --json` without its per-layer norms (architecture, family, format, "
            "dtype, hidden_size, layers, heads, kv_heads, head_dim, vocab_size, tied_embeddings, embedding, unembedding, attention_biases, "
            "rope, and nope_layers and attention_windows where they apply).")
        .def_property_readonly("n_layers", [](const model_handle& h) { return h.model().config().layers; })
        .def_property_readonly("n_heads", [](const model_handle& h) { return h.model().config().heads; })
        .def_property_readonly("n_kv_heads", [](const model_handle& h) { return h.model().config().kv_heads; })
        .def_property_readonly("d_model", [](const model_handle& h) { return h.model().config().hidden_size; })
        .def_property_readonly("d_head", [](const model_handle& h) { return h.model().config().head_dim; })
        .def_property_readonly("d_vocab", [](const model_handle& h) { return h.model().config().vocab_size; })
        .def_property_readonly(
            "rope", [](const model_handle& h) { return to_python(model::model_summary(h.model())["rope"]); },
            "The RoPE settings as a dict (pairing, rotary_dim, base, scaling), or None for learned absolute positions.")
        .def(
            "kv_head_of", [](const model_handle& h, std::size_t head) {
                const auto& c = h.model().config();
                if (head >= c.heads) throw std::out_of_range("qkov: head " + std::to_string(head) + " of a model with " + std::to_string(c.heads) + " heads");
                return head / (c.heads / c.kv_heads);
            },
            py::arg("head"), "The key/value head query head `head` reads (GQA: head // (n_heads // n_kv_heads)); the index into W_K, W_V, b_K, b_V.")
        .def(
            "W_Q", [](const model_handle& h, std::size_t layer) { return stacked(query_heads(read_layer(h, layer)), &model::head_weights::w_q); },
            py::arg("layer"), (std::string("[n_heads, d_model, d_head]. ") + row_convention).c_str())
        .def(
            "W_K",
            [](const model_handle& h, std::size_t layer) {
                const auto lw = read_layer(h, layer);
                return stacked(kv_heads(lw, h.model().config().kv_heads), &model::head_weights::w_k);
            },
            py::arg("layer"), (std::string("[n_kv_heads, d_model, d_head]: per key/value head (kv_head_of(h) for query head h). ") + row_convention).c_str())
        .def(
            "W_V",
            [](const model_handle& h, std::size_t layer) {
                const auto lw = read_layer(h, layer);
                return stacked(kv_heads(lw, h.model().config().kv_heads), &model::head_weights::w_v);
            },
            py::arg("layer"), (std::string("[n_kv_heads, d_model, d_head]: per key/value head (kv_head_of(h) for query head h). ") + row_convention).c_str())
        .def(
            "W_O", [](const model_handle& h, std::size_t layer) { return stacked(query_heads(read_layer(h, layer)), &model::head_weights::w_o); },
            py::arg("layer"), (std::string("[n_heads, d_head, d_model]. ") + row_convention).c_str())
        .def(
            "b_Q", [](const model_handle& h, std::size_t layer) { return stacked_bias(query_heads(read_layer(h, layer)), &model::head_weights::b_q); },
            py::arg("layer"), "[n_heads, d_head], or None when the model has no attention biases. TransformerLens' row convention: q = x W_Q + b_Q.")
        .def(
            "b_K",
            [](const model_handle& h, std::size_t layer) {
                const auto lw = read_layer(h, layer);
                return stacked_bias(kv_heads(lw, h.model().config().kv_heads), &model::head_weights::b_k);
            },
            py::arg("layer"), "[n_kv_heads, d_head] per key/value head, or None when the model has no attention biases. TransformerLens' row convention: k = x W_K + b_K.")
        .def(
            "b_V",
            [](const model_handle& h, std::size_t layer) {
                const auto lw = read_layer(h, layer);
                return stacked_bias(kv_heads(lw, h.model().config().kv_heads), &model::head_weights::b_v);
            },
            py::arg("layer"), "[n_kv_heads, d_head] per key/value head, or None when the model has no attention biases. TransformerLens' row convention: v = x W_V + b_V.")
        .def(
            "b_O",
            [](const model_handle& h, std::size_t layer) -> py::object {
                const auto lw = read_layer(h, layer);
                if (lw.b_o.size() == 0) return py::none();
                return vector_to_numpy(lw.b_o);
            },
            py::arg("layer"), "[d_model], the output bias all heads of the layer share (added once to sum_h z_h W_O[h]), or None.")
        .def_property_readonly(
            "W_E",
            [](const model_handle& h) {
                std::optional<model::matrix> e;
                {
                    const py::gil_scoped_release release;
                    e = h.model().embedding();
                }
                return optional_matrix(std::move(e), false);
            },
            "[d_vocab, d_model]: row t embeds token t (TransformerLens' W_E); None when the file has no embedding.")
        .def_property_readonly(
            "W_U",
            [](const model_handle& h) {
                std::optional<model::matrix> u;
                {
                    const py::gil_scoped_release release;
                    u = h.model().unembedding();
                }
                return optional_matrix(std::move(u), true);
            },
            "[d_model, d_vocab]: logits = x W_U (TransformerLens' W_U, the transpose of lm_head.weight, or of the embedding when tied); None when "
            "the file has neither.")
        .def_property_readonly(
            "W_pos",
            [](const model_handle& h) {
                std::optional<model::matrix> p;
                {
                    const py::gil_scoped_release release;
                    p = h.model().position_embedding();
                }
                return optional_matrix(std::move(p), false);
            },
            "[n_ctx, d_model]: learned position embeddings (GPT-2's wpe); None for models whose positions come from RoPE.")
        .def("__repr__", [](const model_handle& h) {
            const auto& c = h.model().config();
            return "<qkov.Model " + h.path() + ": " + c.architecture + ", " + std::to_string(c.layers) + " layers x " + std::to_string(c.heads) + " heads>";
        });
    m.def("open_model", &open_model, py::arg("path"),
          "Opens a model: a Hugging Face directory (config.json + safetensors), a .safetensors file with its config.json beside it, a .gguf file "
          "or a llama2.c .bin. Pickles are refused. Raises qkov.ModelFileError naming the file, the tensor and the fault.");
}

} // namespace qkov::python
