// What each layer's attention actually reads, without data: the model's own forward pass on a
// proxy sequence, [BOS] followed by the mean token embedding at every position (plus the learned
// position embedding where the model has one). Seed 001 builds its previous-token head from a
// constant direction u with u^T x_i = c for every token; a trained model has one too, the mean of
// each layer's normed residual (docs/SCAN-LABELS.md), and this pass computes it layer by layer,
// through every earlier block, instead of assuming that later layers see the token embedding.
//
// The same pass on [BOS] + tokens in a seeded random order gives each token's *effective embedding*
// at every layer: what a head of that layer reads for the token, after the earlier blocks and with a
// random predecessor (token_copying.hpp, and the content covariance of mean_field.hpp). Each row
// keeps which row its predecessor is, since what earlier heads copied from it is in the row.
//
// The pass needs every weight of the forward pass (forward/decoder_weights.hpp). A file without
// them (an attention-only extract) still gets layer 0, whose input is the embedding itself through
// layer 0's norm, for the proxy sequence and for the tokens (scan_model.hpp): the same inputs the
// full pass gives layer 0. Every later layer is reported as having no proxy input, with the reason.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "qkov/forward/forward_pass.hpp"
#include "qkov/forward/norms.hpp"
#include "qkov/io/model_file_error.hpp"
#include "qkov/model/attention_model.hpp"
#include "qkov/model/head_weights.hpp"
#include "qkov/numeric/uniform_below.hpp"
#include "qkov/scan/column_sums.hpp"

namespace qkov::scan {

using matrix = model::matrix;
using vector = model::vector;

/// Rows of x (n x D) through a layer's norm: the forward pass's own (forward/norms.hpp), fed with
/// the head model's norm weights.
inline matrix through_norm(const model::norm_weights& norm, const matrix& x)
{
    if (norm.weight.size() != x.shape()[1])
        throw std::invalid_argument("qkov: the norm's weight has " + std::to_string(norm.weight.size()) + " entries for residual vectors of width " +
                                    std::to_string(x.shape()[1]));
    forward::norm_params<double> p;
    p.kind = norm.kind, p.eps = norm.eps;
    p.weight.assign(norm.weight.begin(), norm.weight.end());
    p.bias.assign(norm.bias.begin(), norm.bias.end());
    matrix out = xt::empty<double>(x.shape());
    forward::normalize_rows(x.data(), out.data(), x.shape()[0], x.shape()[1], p);  // no copy of x: Llama-3-8B's sample is 131 MB
    return out;
}

/// One layer's normed attention input on the proxy sequence.
struct proxy_layer {
    matrix normed;  ///< (N + 1) x D: row 0 the BOS position, rows 1 .. N the mean-embedding positions
    vector mean;    ///< mu_l: the mean of rows 1 .. N
};

inline proxy_layer proxy_layer_of(const matrix& normed)
{
    proxy_layer p{normed, xt::zeros<double>({normed.shape()[1]})};
    const std::size_t n = normed.shape()[0];
    for (std::size_t t = 1; t < n; ++t) p.mean += xt::view(normed, t, xt::all());
    if (n > 1) p.mean /= static_cast<double>(n - 1);
    return p;
}

struct proxy_inputs {
    std::vector<proxy_layer> layers;  ///< per layer (empty rows until the pass reaches it: the scan steps it, scan_model.hpp); none past layers.size()
    matrix sequence;                  ///< the proxy sequence's residual vectors, (N + 1) x D, for the pass
    vector mean_embedding;            ///< the mean of the embedding's rows (empty without an embedding)
    std::size_t positions = 0;        ///< N
    std::optional<std::size_t> bos;   ///< the token at position 0; nullopt: the mean embedding there too
    bool learned_positions = false;   ///< the rows carry the position embedding (GPT-2)
    std::string missing;              ///< why later layers have no proxy input (empty when every layer has one)
    std::string description;          ///< what the pass ran on, for the evidence

    [[nodiscard]] const proxy_layer* at(std::size_t layer) const { return layer < layers.size() ? &layers[layer] : nullptr; }

    /// Layer l's normed input on the proxy sequence, as the pass reaches it.
    void receive(std::size_t l, const numeric::tensor2<double>& normed) { layers.at(l) = proxy_layer_of(matrix(normed)); }
};

/// The forward pass, when the file has every tensor it needs; else the reason it does not run.
/// Streamed (forward/decoder_weights.hpp): the pass holds one layer at a time, so a model of any
/// size is scanned in the memory of one layer; the proxy sequence and the token chunks go
/// through each layer together, so each layer is read from the file a few times per scan.
struct model_pass {
    std::shared_ptr<const forward::decoder<double>> decoder;  ///< shared: a layer_stepper points at it
    std::string unavailable;  ///< the forward pass's own error, when decoder is empty
};

inline model_pass open_model_pass(const model::attention_model& m)
{
    model_pass p;
    try {
        p.decoder = std::make_shared<const forward::decoder<double>>(m, forward::weight_residence::streamed);
    } catch (const io::model_file_error& e) {
        p.unavailable = e.what();
    }
    return p;
}

/// The mean of the embedding's rows, read in blocks (never V x D at once).
inline std::optional<vector> mean_token_embedding(const model::attention_model& m, std::size_t block_rows = 4096)
{
    if (!m.has_embedding()) return std::nullopt;
    const std::size_t V = m.config().vocab_size, D = m.config().hidden_size;
    block_rows = std::max<std::size_t>(block_rows, 1);
    vector sum = xt::zeros<double>({D});
    for (std::size_t first = 0; first < V; first += block_rows) add_column_sums(sum, *m.embedding_rows(first, std::min(block_rows, V - first)));
    return vector(sum / static_cast<double>(std::max<std::size_t>(V, 1)));
}

/// [BOS] + mean embedding x N (+ positions 0 .. N) as residual vectors, (N + 1) x D.
inline matrix proxy_sequence(const model::attention_model& m, const vector& mean_embedding, std::optional<std::size_t> bos, std::size_t positions,
                             const std::optional<matrix>& position_embedding)
{
    const std::size_t D = mean_embedding.size();
    matrix x = xt::empty<double>({positions + 1, D});
    for (std::size_t t = 0; t <= positions; ++t)
        for (std::size_t j = 0; j < D; ++j) x(t, j) = mean_embedding(j);
    if (bos) {
        const matrix row = *m.embedding_rows(*bos, 1);
        for (std::size_t j = 0; j < D; ++j) x(0, j) = row(0, j);
    }
    if (position_embedding)
        for (std::size_t t = 0; t <= positions; ++t)
            for (std::size_t j = 0; j < D; ++j) x(t, j) += (*position_embedding)(t, j);
    return x;
}


/// The proxy sequence [BOS] + mean embedding x `positions`, for the pass to run (proxy_inputs::
/// receive takes each layer's normed input). Without an embedding no layer has one; without the
/// rest of the forward pass only layer 0 has, computed here.
inline proxy_inputs run_proxy_pass(const model::attention_model& m, const model_pass& pass, std::size_t positions)
{
    proxy_inputs out;
    const auto& c = m.config();
    const auto mean = mean_token_embedding(m);
    if (!mean) {
        out.missing = "the file has no token embedding to build the proxy sequence from";
        return out;
    }
    out.mean_embedding = *mean;
    auto wpe = m.position_embedding();
    if (wpe) positions = std::min(positions, wpe->shape()[0] - 1);
    // The forward pass refuses sequences past the context the model declares; BOS takes one place.
    if (c.max_positions > 0) positions = std::min(positions, c.max_positions - 1);
    // The kernels are over these N + 1 positions at every layer: a sliding window that would cut
    // them makes the mean field's full causal softmax a different attention than the model's.
    for (std::size_t l = 0; l < c.layers; ++l) c.require_full_attention(l, positions + 1, "the scan's proxy sequence");
    out.positions = positions;
    out.learned_positions = wpe.has_value();
    out.bos = c.bos_token_id;
    matrix x = proxy_sequence(m, *mean, out.bos, positions, wpe);
    out.description = std::string("the model's forward pass on ") + (out.bos ? "[BOS " + std::to_string(*out.bos) + "]" : "[mean embedding]") +
                      " + mean token embedding x " + std::to_string(positions) + (wpe ? " (+ learned positions)" : "");
    if (pass.decoder) {
        out.layers.resize(c.layers);
        out.sequence = std::move(x);
        return out;
    }
    // Layer 0 reads the embedding through its norm: no earlier block is needed.
    out.layers.push_back(proxy_layer_of(through_norm(m.layer(0).norm, x)));
    out.missing = "no proxy pass past layer 0: " + pass.unavailable;
    out.description += ", layer 0 only";
    return out;
}

/// Rows of normed inputs the pass gathers layer by layer from sequences it runs: each row is one
/// position of one run. The runs are handed to the pass (forward::layer_stepper), receive() takes
/// each run's normed input at each layer.
/// effective_inputs::predecessor of a row whose token came first in its run (after BOS, if any).
inline constexpr std::size_t no_predecessor = static_cast<std::size_t>(-1);

struct effective_inputs {
    std::vector<matrix> rows;            ///< per layer: one row per position read (empty until the pass reaches the layer)
    std::vector<std::size_t> position;   ///< per row: where its token sat (BOS, if any, at 0)
    std::vector<std::size_t> predecessor;  ///< per row: the row of the token just before it in its run (no_predecessor: BOS or nothing)
    std::vector<numeric::tensor2<double>> runs;  ///< the sequences' residual vectors, for the pass (moved out to it)
    std::vector<std::vector<std::pair<std::size_t, std::size_t>>> reads;  ///< per run: (row, position in the run) it gives

    /// Run r's normed input at layer l: its rows of layer l.
    void receive(std::size_t l, std::size_t r, const numeric::tensor2<double>& normed)
    {
        const std::size_t D = normed.shape()[1];
        if (rows.at(l).size() == 0) rows[l] = xt::empty<double>({position.size(), D});
        for (const auto& [row, at] : reads.at(r)) std::copy_n(normed.data() + at * D, D, rows[l].data() + row * D);
    }
};

/// x_0 of a token sequence from a model's own embedding rows (+ its learned positions): what the
/// forward pass's embed() gives, for a model whose pass cannot run (layer 0 reads only this).
inline numeric::tensor2<double> model_embedding(const model::attention_model& m, const std::optional<matrix>& positions,
                                                const std::vector<forward::token_id>& sequence)
{
    const std::size_t D = m.config().hidden_size, n = sequence.size();
    if (positions && n > positions->shape()[0])
        throw std::invalid_argument("qkov: " + std::to_string(n) + " tokens, but the model has learned positions for " + std::to_string(positions->shape()[0]));
    numeric::tensor2<double> x = numeric::tensor2<double>::from_shape({n, D});
    for (std::size_t t = 0; t < n; ++t) {
        const matrix row = *m.embedding_rows(sequence[t], 1);
        for (std::size_t j = 0; j < D; ++j) x(t, j) = row(0, j) + (positions ? (*positions)(t, j) : 0.0);
    }
    return x;
}

/// Each token's normed input at every layer in a random context: the tokens asked, in a seeded
/// random order (numeric::uniform_below's platform-independent draw), are read as [BOS] + chunks of
/// `context` tokens, so each token follows a random predecessor as in text, and what earlier heads
/// copy from the previous positions is in its residual. Row i is token tokens[i]. `embed` gives a
/// sequence's x_0 (the forward pass's, or model_embedding); the runs are run by the caller (the
/// forward pass through every layer, or layer 0's norm alone).
inline effective_inputs effective_embeddings(const std::function<numeric::tensor2<double>(const std::vector<forward::token_id>&)>& embed,
                                             std::size_t layers, std::optional<std::size_t> bos, const std::vector<std::size_t>& tokens,
                                             std::size_t context, std::uint64_t seed = 0)
{
    const std::size_t T = tokens.size(), lead = bos ? 1 : 0;
    effective_inputs result;
    result.rows.resize(layers);
    result.position.resize(T);
    result.predecessor.assign(T, no_predecessor);
    std::vector<std::size_t> order(T);
    for (std::size_t i = 0; i < T; ++i) order[i] = i;
    std::mt19937_64 rng(seed);
    for (std::size_t i = 0; i + 1 < T; ++i) std::swap(order[i], order[i + numeric::uniform_below(rng, T - i)]);
    context = std::max<std::size_t>(context, 1);
    for (std::size_t first = 0; first < T; first += context) {
        const std::size_t n = std::min(context, T - first);
        std::vector<forward::token_id> sequence;
        if (bos) sequence.push_back(static_cast<forward::token_id>(*bos));
        result.reads.emplace_back();
        for (std::size_t i = 0; i < n; ++i) {
            sequence.push_back(static_cast<forward::token_id>(tokens[order[first + i]]));
            result.position[order[first + i]] = lead + i;
            if (i > 0) result.predecessor[order[first + i]] = order[first + i - 1];
            result.reads.back().emplace_back(order[first + i], lead + i);
        }
        result.runs.push_back(embed(sequence));
    }
    return result;
}

inline effective_inputs effective_embeddings(const forward::decoder<double>& pass, std::optional<std::size_t> bos, const std::vector<std::size_t>& tokens,
                                             std::size_t context, std::uint64_t seed = 0)
{
    return effective_embeddings([&](const std::vector<forward::token_id>& s) { return pass.embed(s); }, pass.config().layers, bos, tokens, context, seed);
}

/// Each position's normed input at every layer on the user's token sequences, [BOS] first when the
/// model has one and a sequence does not already start with it: what `qkov scan --calibrate FILE`
/// reads instead of the vocabulary in a random context. Rows are the positions past BOS, in order,
/// at most `most_rows` of them (the sequences after that are not run); position[i] is row i's.
inline effective_inputs text_inputs(const forward::decoder<double>& pass, std::optional<std::size_t> bos,
                                    const std::vector<std::vector<std::size_t>>& sequences, std::size_t most_rows)
{
    const auto& c = pass.config();
    effective_inputs result;
    result.rows.resize(c.layers);
    const std::size_t lead = bos ? 1 : 0;
    for (const auto& ids : sequences) {
        const std::size_t rows = result.position.size();
        if (rows >= most_rows) break;
        std::vector<forward::token_id> run;
        if (bos && (ids.empty() || ids.front() != *bos)) run.push_back(static_cast<forward::token_id>(*bos));
        for (const std::size_t id : ids) run.push_back(static_cast<forward::token_id>(id));
        const std::size_t past_bos = run.size() - lead;
        if (past_bos == 0) continue;
        run.resize(run.size() - (rows + past_bos > most_rows ? rows + past_bos - most_rows : 0));
        result.reads.emplace_back();
        for (std::size_t i = lead; i < run.size(); ++i) {
            result.reads.back().emplace_back(result.position.size(), i);
            result.predecessor.push_back(i > lead ? result.position.size() - 1 : no_predecessor);
            result.position.push_back(i);
        }
        result.runs.push_back(pass.embed(run));
    }
    if (result.position.empty()) throw std::invalid_argument("qkov: the calibration text has no position past BOS");
    return result;
}

} // namespace qkov::scan
