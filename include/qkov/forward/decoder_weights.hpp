// Every weight the forward pass needs, read once from a head model and converted to T.
//
// The attention weights come from the head model (attention_model::layer(l), which already knows
// each family's layout, biases and GQA), stacked back into one projection per layer so that a
// layer's queries, keys and values are one BLAS product each. The rest (MLP, the norm in front of
// it, the final norm, the embedding, the unembedding and GPT-2's learned positions) is read here,
// by family:
//   gpt2      ln_2, mlp.c_fc [D, F] and mlp.c_proj [F, D] (Conv1D [in, out]), ln_f, wte, wpe
//   gpt_neox  post_attention_layernorm, mlp.dense_h_to_4h [F, D], mlp.dense_4h_to_h [D, F], final_layer_norm
//   llama     post_attention_layernorm, mlp.gate_proj and mlp.up_proj [F, D], mlp.down_proj [D, F], norm
// Every tensor the pass needs is looked up before anything is read, and all that are missing are
// named in one error ("the file lacks wte.weight, mlp.c_fc.weight (layers 0-11), ... needed by the
// forward pass"), so an attention-only file says at once what it lacks.
// Refused by name: fused gate_up projections and GPT-NeoX configs without RoPE, which the pass
// would run wrong (what changes the scores or the residual stream in other ways, QK-norm or
// Gemma's scaled embedding, is refused when the model is opened: io/unmodelled_settings.hpp).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "qkov/forward/activations.hpp"
#include "qkov/forward/norms.hpp"
#include "qkov/io/model_file_error.hpp"
#include "qkov/model/attention_model.hpp"
#include "qkov/numeric/blas_products.hpp"

namespace qkov::forward {

template <class T>
using tensor2 = numeric::tensor2<T>;

/// One layer's attention, all heads stacked: row block h of w_q is head h's d x D W_q.
template <class T>
struct attention_params {
    tensor2<T> w_q;       ///< H d x D
    tensor2<T> w_k, w_v;  ///< Hkv d x D
    tensor2<T> w_o;       ///< D x H d
    std::vector<T> b_q, b_k, b_v, b_o;  ///< empty when the model has none
};

/// A slice of the MLP's hidden width F: rows [first, first + f) of its input projections and the
/// same columns of its output projection. Its part of the output is
/// out_slice(act(in_slice x + b_in) [* act(gate_slice x)]); the MLP's output is the sum of its
/// slices' parts, in order, plus b_out.
template <class T>
struct mlp_slice {
    tensor2<T> w_in;    ///< f x D (Llama: up_proj's rows)
    tensor2<T> w_gate;  ///< f x D (Llama: gate_proj's rows, activated), or empty
    tensor2<T> w_out;   ///< D x f: the output projection's columns
    std::vector<T> b_in;
};

/// The MLP's hidden width is taken in slices of this many (the last one narrower): a streamed
/// pass holds one slice of a layer's MLP at a time, not all of it. Llama-3-8B's MLP is 1.4 GB of
/// a layer's 1.75 GB in float64; a slice of 2,048 of its 14,336 is 200 MB. The slices are fixed by
/// the model, not by where the weights live, so a resident and a streamed pass sum the same parts
/// in the same order and agree to the bit. MLPs up to this width are one slice: their output is
/// the single product it always was.
inline constexpr std::size_t mlp_slice_width = 2048;

/// The MLP: out(act(in x + b_in) [* act(gate x)]) + b_out, in slices of its hidden width.
template <class T>
struct mlp_params {
    std::size_t width = 0;              ///< F
    std::vector<mlp_slice<T>> slices;   ///< every slice (resident), or none (streamed: read one at a time)
    std::vector<T> b_out;
};

template <class T>
struct block_params {
    norm_params<T> attention_norm, mlp_norm;
    attention_params<T> attention;
    mlp_params<T> mlp;
};

/// Where the pass keeps its weights. resident: every layer, the embedding and the unembedding
/// converted once (the fastest for repeated runs of a model that fits). streamed: only the norms
/// and the position table are held; each layer is read from the file when the pass reaches it and
/// the (un)embedding a row block at a time, so the pass holds one layer, whatever the model's
/// size (a Llama-3-8B layer is 1.7 GB in float64, the whole model 64 GB). The file is read again
/// on every run: run many sequences through one layer at a time (layer_stepper, forward_pass.hpp).
enum class weight_residence { resident, streamed };

/// The bytes the resident weights would take in T: every tensor of the file, converted (an upper
/// bound: a tied unembedding, and tensors the pass does not read, count too). Saturates at 2^64 - 1.
template <class T>
std::uint64_t resident_weight_bytes(const model::attention_model& m)
{
    std::uint64_t bytes = 0;
    for (const auto& name : m.source().names()) {
        const auto* t = m.source().find(name);
        const std::uint64_t add = t->count > UINT64_MAX / sizeof(T) ? UINT64_MAX : t->count * sizeof(T);
        bytes = add > UINT64_MAX - bytes ? UINT64_MAX : bytes + add;
    }
    return bytes;
}

/// Resident when the weights take at most half of what the process may still use (`headroom`,
/// io::memory_headroom; unknown: resident), the other half left for the pass's activations;
/// else streamed, which holds one layer whatever the model's size (Llama-3-8B in float32: 32 GB
/// resident, one layer 0.87 GB streamed) at the cost of reading the file again on every run.
inline weight_residence residence_within(std::uint64_t resident_bytes, std::optional<std::uint64_t> headroom)
{
    return headroom && resident_bytes > *headroom / 2 ? weight_residence::streamed : weight_residence::resident;
}

template <class T>
struct decoder_weights {
    io::model_config config;
    activation mlp_activation = activation::silu;
    std::vector<block_params<T>> blocks;  ///< resident: every layer; streamed: none
    norm_params<T> final_norm;
    tensor2<T> embedding;    ///< V x D (resident), or empty
    tensor2<T> unembedding;  ///< V x D (logits = U x), or empty when tied to the embedding (or streamed)
    tensor2<T> positions;    ///< P x D learned positions (GPT-2), or empty
    /// streamed: the model the layers and (un)embedding rows are read from; it must outlive the pass.
    const model::attention_model* source = nullptr;

    /// U of logits = U x: the unembedding, or the embedding it is tied to (one copy, not two:
    /// GPT-2 small's is 154 MB in float32).
    [[nodiscard]] const tensor2<T>& output_embedding() const { return unembedding.size() != 0 ? unembedding : embedding; }
};

namespace detail {

template <class T>
tensor2<T> converted(const model::matrix& m)
{
    tensor2<T> out = tensor2<T>::from_shape({m.shape(0), m.shape(1)});
    std::copy(m.begin(), m.end(), out.begin());
    return out;
}
template <class T>
std::vector<T> converted(const model::vector& v)
{
    return std::vector<T>(v.begin(), v.end());
}
/// The stacked rows of several d x D (or D x d, stacked by columns) blocks.
template <class T>
tensor2<T> stacked_rows(const std::vector<const model::matrix*>& parts)
{
    const std::size_t r = parts.front()->shape(0), c = parts.front()->shape(1);
    tensor2<T> out = tensor2<T>::from_shape({r * parts.size(), c});
    for (std::size_t p = 0; p < parts.size(); ++p) std::copy(parts[p]->begin(), parts[p]->end(), out.begin() + static_cast<std::ptrdiff_t>(p * r * c));
    return out;
}
template <class T>
std::vector<T> stacked(const std::vector<const model::vector*>& parts)
{
    std::vector<T> out;
    for (const auto* p : parts) out.insert(out.end(), p->begin(), p->end());
    if (out.size() != 0 && std::any_of(parts.begin(), parts.end(), [](const auto* p) { return p->size() == 0; }))
        throw std::logic_error("qkov: some heads of a layer have a bias and others not");
    return out;
}

/// "mlp.c_fc" + ".weight".
inline std::string tensor_of(const char* stem, const char* part) { return std::string(stem) + "." + part; }
/// A norm's bias from its weight's name: "ln_f.weight" -> "ln_f.bias".
inline std::string bias_of(const char* weight)
{
    std::string name(weight);
    return name.substr(0, name.rfind('.')) + ".bias";
}

/// The tensor names one family's forward pass needs, beyond the attention the head model reads
/// (io/model_family.hpp's layout): the embedding, the position table where there is one and the
/// final norm; per layer the MLP's norm and projections.
struct family_names {
    std::vector<std::string> global;
    std::vector<std::string> per_layer;
};

inline family_names needed_names(const io::model_config& c)
{
    const auto& l = io::layout_of(c.family);
    family_names n;
    n.global.push_back(l.embedding.front());
    if (l.position_embedding) n.global.push_back(l.position_embedding);
    n.global.push_back(l.final_norm);
    n.per_layer.push_back(l.mlp_norm);
    if (l.mlp_gate) n.per_layer.push_back(tensor_of(l.mlp_gate, "weight"));
    n.per_layer.push_back(tensor_of(l.mlp_in, "weight"));
    n.per_layer.push_back(tensor_of(l.mlp_out, "weight"));
    return n;
}

/// Throws one model_file_error naming every tensor the pass needs and the file lacks.
inline void require_forward_tensors(const model::attention_model& m)
{
    const auto& c = m.config();
    const auto names = needed_names(c);
    std::vector<std::string> missing;
    for (const auto& g : names.global)
        if (m.global_tensor({g.c_str()}) == nullptr && !(g == names.global.front() && m.has_embedding())) missing.push_back(g);  // the first is the embedding
    using presence = model::attention_model::presence;
    const auto unembedding = m.unembedding_presence();
    if ((unembedding == presence::absent || unembedding == presence::tied_to_absent) && m.global_tensor({names.global.front().c_str()}) != nullptr)
        missing.push_back(std::string("the unembedding (") + m.layout().unembedding.front() + ")");
    for (const auto& s : names.per_layer) {
        std::vector<std::size_t> layers;
        for (std::size_t l = 0; l < c.layers; ++l)
            if (m.layer_tensor(l, {s.c_str()}) == nullptr) layers.push_back(l);
        if (layers.empty()) continue;
        std::string where = layers.size() == 1 ? "layer " + std::to_string(layers[0]) : "layers " + std::to_string(layers.front()) + "-" + std::to_string(layers.back());
        if (layers.size() > 1 && layers.size() != layers.back() - layers.front() + 1) where += " (" + std::to_string(layers.size()) + " of them)";
        missing.push_back(s + " (" + where + ")");
    }
    if (missing.empty()) return;
    std::string list;
    for (std::size_t i = 0; i < missing.size(); ++i) list += (i ? ", " : "") + missing[i];
    throw io::model_file_error(m.source().location(), "the file lacks " + list + " needed by the forward pass");
}

inline void refuse_unsupported(const model::attention_model& m)
{
    const auto& c = m.config();
    const auto refuse = [&](const std::string& why) { throw io::model_file_error(m.source().location(), "the forward pass does not run this model: " + why); };
    if (m.layer_tensor(0, {"mlp.gate_up_proj.weight"}) != nullptr) refuse("a fused gate_up_proj MLP is not read");
    if (c.family == io::model_family::gpt_neox && !c.rope) refuse("a GPT-NeoX config without RoPE");
}

template <class T>
norm_params<T> read_norm(const model::attention_model& m, const io::tensor_view& weight, const io::tensor_view* bias)
{
    const std::size_t D = m.config().hidden_size;
    norm_params<T> n;
    n.kind = m.config().norm;
    n.eps = m.config().norm_eps;
    n.weight = converted<T>(model::attention_model::load(weight, D));
    if (bias) n.bias = converted<T>(model::attention_model::load(*bias, D));
    return n;
}

/// A layer's tensor the caller has already required (require_forward_tensors).
inline const io::tensor_view& present(const model::attention_model& m, std::size_t l, const char* suffix)
{
    const auto* t = m.layer_tensor(l, {suffix});
    if (t == nullptr) throw io::model_file_error(m.source().location(), "the file lacks " + m.layer_tensor_name(l, suffix) + " needed by the forward pass");
    return *t;
}
inline std::vector<double> optional_bias(const model::attention_model& m, std::size_t l, const char* suffix, std::size_t n)
{
    const auto* t = m.layer_tensor(l, {suffix});
    if (t == nullptr) return {};
    const auto v = model::attention_model::load(*t, n);
    return {v.begin(), v.end()};
}

/// Rows [out_first, out_first + outs) x columns [in_first, in_first + ins) of an nn.Linear [out, in]
/// weight, or of a Conv1D [in, out] one read transposed; rows x columns as used. The transpose is
/// copied in square tiles, converting as it goes: an element-wise strided copy (xt::transpose
/// assigned to a matrix) of GPT-2 small's MLP weights was about a tenth of the time of reading the
/// model.
template <class T>
tensor2<T> linear_block(const io::tensor_view& t, std::size_t out, std::size_t in, bool conv1d, std::size_t out_first, std::size_t outs,
                        std::size_t in_first, std::size_t ins)
{
    if (!conv1d) return converted<T>(model::attention_model::load_block(t, out, in, out_first, outs, in_first, ins));
    const model::matrix m = model::attention_model::load_block(t, in, out, in_first, ins, out_first, outs);  // ins x outs
    tensor2<T> result = tensor2<T>::from_shape({outs, ins});
    const double* from = m.data();
    T* to = result.data();
    constexpr std::size_t tile = 32;
    for (std::size_t r0 = 0; r0 < ins; r0 += tile)
        for (std::size_t c0 = 0; c0 < outs; c0 += tile) {
            const std::size_t r1 = std::min(r0 + tile, ins), c1 = std::min(c0 + tile, outs);
            for (std::size_t c = c0; c < c1; ++c)
                for (std::size_t r = r0; r < r1; ++r) to[c * ins + r] = static_cast<T>(from[r * outs + c]);
        }
    return result;
}

/// A whole nn.Linear [out, in] (or Conv1D [in, out]) weight, as linear_block reads it.
template <class T>
tensor2<T> linear(const io::tensor_view& t, std::size_t out, std::size_t in, bool conv1d)
{
    return linear_block<T>(t, out, in, conv1d, 0, out, 0, in);
}

/// Layer l's MLP tensors, their layout and the hidden width F.
struct mlp_tensors {
    const io::tensor_view *in = nullptr, *gate = nullptr, *out = nullptr;
    std::string in_bias, out_bias;
    std::size_t width = 0;
    bool conv1d = false;  ///< GPT-2's Conv1D [in, out]; nn.Linear [out, in]
};

inline mlp_tensors find_mlp(const model::attention_model& m, std::size_t l)
{
    const auto& layout = m.layout();
    mlp_tensors t;
    t.conv1d = layout.conv1d;
    t.in = &present(m, l, tensor_of(layout.mlp_in, "weight").c_str());
    t.out = &present(m, l, tensor_of(layout.mlp_out, "weight").c_str());
    t.in_bias = tensor_of(layout.mlp_in, "bias"), t.out_bias = tensor_of(layout.mlp_out, "bias");
    // The hidden width is read from the first projection's shape; the reads check every other shape.
    if (t.in->shape.size() != 2) throw io::model_file_error(t.in->file, t.in->name, "must be a matrix");
    t.width = t.in->shape[t.conv1d ? 1 : 0];
    if (layout.mlp_gate) {  // SwiGLU: out(silu(gate x) * in x)
        t.gate = &present(m, l, tensor_of(layout.mlp_gate, "weight").c_str());
        if (const auto gate_bias = tensor_of(layout.mlp_gate, "bias"); m.layer_tensor(l, {gate_bias.c_str()}) != nullptr)
            throw io::model_file_error(m.source().location(), m.layer_tensor_name(l, gate_bias.c_str()), "a gate bias, which the forward pass does not apply");
    }
    return t;
}

/// Slice `index` of layer l's MLP (hidden rows [index * mlp_slice_width, ...)).
template <class T>
mlp_slice<T> read_mlp_slice(const model::attention_model& m, std::size_t l, std::size_t index)
{
    const std::size_t D = m.config().hidden_size;
    const mlp_tensors t = find_mlp(m, l);
    const std::size_t first = index * mlp_slice_width;
    if (first >= t.width) throw std::out_of_range("qkov: MLP slice " + std::to_string(index) + " of a hidden width of " + std::to_string(t.width));
    const std::size_t f = std::min(mlp_slice_width, t.width - first);
    mlp_slice<T> s;
    s.w_in = linear_block<T>(*t.in, t.width, D, t.conv1d, first, f, 0, D);
    if (t.gate) s.w_gate = linear_block<T>(*t.gate, t.width, D, t.conv1d, first, f, 0, D);
    s.w_out = linear_block<T>(*t.out, D, t.width, t.conv1d, 0, D, first, f);
    const auto b_in = optional_bias(m, l, t.in_bias.c_str(), t.width);
    if (!b_in.empty()) s.b_in.assign(b_in.begin() + static_cast<std::ptrdiff_t>(first), b_in.begin() + static_cast<std::ptrdiff_t>(first + f));
    return s;
}

/// The number of slices of a hidden width F.
inline std::size_t mlp_slice_count(std::size_t width) { return (width + mlp_slice_width - 1) / mlp_slice_width; }

/// Layer l's MLP: its width, output bias and, when `with_slices`, every slice (else none: a
/// streamed pass reads them one at a time).
template <class T>
mlp_params<T> read_mlp(const model::attention_model& m, std::size_t l, bool with_slices)
{
    const mlp_tensors t = find_mlp(m, l);
    mlp_params<T> p;
    p.width = t.width;
    const auto b_out = optional_bias(m, l, t.out_bias.c_str(), m.config().hidden_size);
    p.b_out.assign(b_out.begin(), b_out.end());
    if (with_slices)
        for (std::size_t s = 0; s < mlp_slice_count(t.width); ++s) p.slices.push_back(read_mlp_slice<T>(m, l, s));
    return p;
}

template <class T>
attention_params<T> read_attention(const model::layer_weights& lw, std::size_t kv_heads)
{
    const std::size_t group = lw.heads.size() / kv_heads;
    std::vector<const model::matrix*> q, k, v, o;
    std::vector<const model::vector*> bq, bk, bv;
    for (const auto& h : lw.heads) {
        q.push_back(&h.w_q), bq.push_back(&h.b_q);
        o.push_back(&h.w_o);
        if (h.head % group == 0) k.push_back(&h.w_k), v.push_back(&h.w_v), bk.push_back(&h.b_k), bv.push_back(&h.b_v);
    }
    attention_params<T> a;
    a.w_q = stacked_rows<T>(q), a.w_k = stacked_rows<T>(k), a.w_v = stacked_rows<T>(v);
    a.b_q = stacked<T>(bq), a.b_k = stacked<T>(bk), a.b_v = stacked<T>(bv);
    // W_o of head h is D x d: the heads sit side by side in columns.
    const std::size_t D = o.front()->shape(0), d = o.front()->shape(1);
    a.w_o = tensor2<T>::from_shape({D, d * o.size()});
    for (std::size_t h = 0; h < o.size(); ++h)
        for (std::size_t r = 0; r < D; ++r)
            for (std::size_t i = 0; i < d; ++i) a.w_o(r, h * d + i) = static_cast<T>((*o[h])(r, i));
    a.b_o = converted<T>(lw.b_o);
    return a;
}

} // namespace detail

/// Layer l's weights, converted to T (the tensors were required by require_forward_tensors);
/// without the MLP's slices when `mlp_slices` is false (a streamed pass reads those one at a time).
template <class T>
block_params<T> read_block(const model::attention_model& m, std::size_t l, bool mlp_slices = true)
{
    const auto& layout = m.layout();
    const std::string mlp_norm_bias = detail::bias_of(layout.mlp_norm);
    const auto lw = m.layer(l);
    block_params<T> b;
    b.attention_norm = {lw.norm.kind, detail::converted<T>(lw.norm.weight), detail::converted<T>(lw.norm.bias), lw.norm.eps};
    b.attention = detail::read_attention<T>(lw, m.config().kv_heads);
    b.mlp_norm = detail::read_norm<T>(m, detail::present(m, l, layout.mlp_norm), m.layer_tensor(l, {mlp_norm_bias.c_str()}));
    b.mlp = detail::read_mlp<T>(m, l, mlp_slices);
    return b;
}

/// Reads what the pass needs of the model: every weight, converted (resident; one layer of doubles
/// alive at a time), or the norms and positions only (streamed, with m kept as the source).
template <class T>
decoder_weights<T> read_decoder_weights(const model::attention_model& m, weight_residence residence = weight_residence::resident)
{
    detail::refuse_unsupported(m);
    detail::require_forward_tensors(m);
    const auto& c = m.config();
    decoder_weights<T> w;
    w.config = c;
    w.mlp_activation = parse_activation(c.activation);
    const auto& layout = m.layout();
    const std::string final_bias = detail::bias_of(layout.final_norm);
    w.final_norm = detail::read_norm<T>(m, *m.global_tensor({layout.final_norm}), m.global_tensor({final_bias.c_str()}));
    if (residence == weight_residence::streamed) {
        w.source = &m;
    } else {
        for (std::size_t l = 0; l < c.layers; ++l) w.blocks.push_back(read_block<T>(m, l));
        w.embedding = detail::converted<T>(*m.embedding());
        if (m.unembedding_presence() == model::attention_model::presence::present) w.unembedding = detail::converted<T>(*m.unembedding());
    }
    if (layout.position_embedding) {
        const auto& wpe = *m.global_tensor({layout.position_embedding});
        if (wpe.shape.size() != 2) throw io::model_file_error(wpe.file, wpe.name, "must be a matrix [positions, D]");
        w.positions = detail::converted<T>(model::attention_model::load(wpe, wpe.shape[0], c.hidden_size));
    }
    return w;
}

} // namespace qkov::forward
