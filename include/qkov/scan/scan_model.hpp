// A model scanned from its weights, layer by layer: per-head metrics (head_measurement.hpp), copying
// scores (copying_score.hpp) and composition scores (composition.hpp).
//
// Layers A..B (scan_options): their heads, and the composition pairs whose later head is among
// them, the earlier one anywhere before it; the layers before A are read for their W_o and W_v.
//
// Memory: one layer's heads and its (H + 2G)d x D composition stack at a time, plus per layer up to B
// the D x Hd row of W_o its heads write with (one D x D when Hd = D), plus the D x D token
// circuit when the model has both embeddings (read in blocks of rows, token_side.hpp: never
// W_E or W_U whole). The constant-reading test's token_sample rows of W_E are read again, a block
// at a time, for each head that takes the test (embedding_sample.hpp).
#pragma once

#include <algorithm>
#include <chrono>
#include <exception>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "qkov/model/attention_model.hpp"
#include "qkov/model/model_fingerprint.hpp"
#include "qkov/numeric/blas_threads.hpp"
#include "qkov/numeric/parallel_blocks.hpp"
#include "qkov/scan/absorbed_form.hpp"
#include "qkov/scan/composition.hpp"
#include "qkov/scan/copying_score.hpp"
#include "qkov/scan/embedding_sample.hpp"
#include "qkov/scan/head_measurement.hpp"
#include "qkov/scan/structure_measurement.hpp"
#include "qkov/scan/head_prediction.hpp"
#include "qkov/scan/layer_circuits.hpp"
#include "qkov/scan/proxy_dump.hpp"
#include "qkov/scan/proxy_pass.hpp"
#include "qkov/scan/scan_options.hpp"
#include "qkov/scan/scan_progress.hpp"
#include "qkov/scan/scan_result.hpp"
#include "qkov/scan/shard_inputs.hpp"
#include "qkov/scan/token_copying.hpp"
#include "qkov/scan/token_side.hpp"
#include "qkov/forward/norms.hpp"

namespace qkov::scan {

/// Position and content structure of a head (docs/SCAN-LABELS.md). `sample` is the sampled
/// embedding (empty without one), read through the layer's `norm` by the heads that need it.
inline void describe_head(const model::head_weights& h, const head_factors& f, const io::model_config& config, const embedding_sample& sample,
                          const model::norm_weights& norm, const scan_options& options, head_metrics& m)
{
    const auto& t = options.thresholds;
    auto& s = m.structure;
    const bool one_direction = s.one_direction_q >= t.one_direction && s.one_direction_k >= t.one_direction;
    vector constant;  // the sample's mean row through the norm, read with the readings
    if (one_direction && sample.rows != 0) {
        auto read = read_through_norm(sample, norm, {top_read_direction(f.q), top_read_direction(f.k)});
        s.reading_q = constancy_of(read.projections[0]);
        s.reading_k = constancy_of(read.projections[1]);
        constant = std::move(read.mean);
    }
    if (const auto rope = config.rope_at(h.layer)) {  // none in a NoPE layer
        s.rope = measure_rope(h, *rope, t.context);
        // The direct scores (head_attention.hpp) rotate by the unscaled schedule: compare only there.
        if (!rope->scaling) m.absorbed_form_gap = absorbed_form_gap(h, *rope, probe_inputs(options.absorbed_form_probe, h.w_q.shape()[1]));
        const bool reads_constant =
            s.reading_q && s.reading_k && s.reading_q->variation() <= t.constant_reading && s.reading_k->variation() <= t.constant_reading;
        if (one_direction && reads_constant) s.profile = measure_offset_profile(h, *rope, constant, t.context, options.certify);
    }
}

/// What every head's labels read of the model besides its own weights: each layer's proxy input
/// and the per-token read-out (proxy_pass.hpp, token_copying.hpp). The proxy sequence, the token
/// chunks and the calibration text go through the model together, one layer at a time, as the
/// scan reaches the layer (advance_to), and a layer's rows are let go once its heads are scanned
/// (release): the evidence holds one layer's, whatever the model's depth.
struct model_evidence {
    model_pass pass;  ///< the forward pass (streamed): the per-token copying reads the unembedding through it
    proxy_inputs proxy;
    std::optional<token_readout> readout;
    std::string readout_missing;
    std::optional<effective_inputs> calibration;  ///< the user's text, when given: the content rows instead of the read-out's
    std::optional<effective_inputs> layer_zero;   ///< without the forward pass: the tokens' inputs at layer 0, which needs none of it
    std::vector<double> residual_scale;  ///< per layer, as the pass reaches it: the residual's mean size at its input over the token rows (the norm's divisor)
    std::optional<forward::layer_stepper<double>> stepper;  ///< the runs: [the proxy sequence, the token chunks, the calibration runs]
    /// The shards' shared inputs (shard_inputs.hpp), when the pass's numbers are read from them
    /// instead (read_shared_layers): the stepper is then gone.
    const shard_inputs_reader* shared = nullptr;

    /// Per layer, the rows mu_l and the content come from, and each row's position.
    [[nodiscard]] const effective_inputs* content() const
    {
        return calibration ? &*calibration : readout ? &readout->effective : layer_zero ? &*layer_zero : nullptr;
    }
    [[nodiscard]] const std::vector<matrix>* content_rows() const { return content() ? &content()->rows : nullptr; }
    [[nodiscard]] const std::vector<std::size_t>& content_positions() const
    {
        static const std::vector<std::size_t> none;
        return content() ? content()->position : none;
    }
    [[nodiscard]] const std::vector<std::size_t>& content_predecessors() const
    {
        static const std::vector<std::size_t> none;
        return content() ? content()->predecessor : none;
    }

    /// Runs the pass through layer l (and any before it not yet run): each layer's proxy input,
    /// content rows and their mean mu_l (over the tokens in their context, not the
    /// norm of the mean embedding, which magnifies the mean direction by the norm's scaling).
    void advance_to(std::size_t l)
    {
        if (shared) return load_shared(l);
        if (!stepper) return;
        const std::size_t chunks = readout->effective.reads.size();
        while (stepper->next_layer() <= l) {
            const std::size_t at = stepper->next_layer();
            residual_scale.at(at) = token_residual_scale(chunks);
            stepper->step([&](std::size_t run, const numeric::tensor2<double>& normed) {
                if (run == 0) proxy.receive(at, normed);
                else if (run <= chunks) readout->effective.receive(at, run - 1, normed);
                else calibration->receive(at, run - 1 - chunks, normed);
            });
            proxy.layers.at(at).mean = xt::mean((*content_rows())[at], {0});
            if (at < l) release(at);
        }
        pass.decoder->release_streamed_layer();  // the layer's weights are not needed while its heads are scanned
    }

    /// Reads what the pass gives layer l from the shared inputs (the layers before it are not read:
    /// a shard reading them needs only its own layers' rows, each once), with mu_l as the pass
    /// would have it.
    void load_shared(std::size_t l)
    {
        const std::size_t N1 = proxy.sequence.shape()[0], D = proxy.sequence.shape()[1];
        auto in = shared->layer(l, N1, readout->tokens.size(), calibration ? calibration->position.size() : 0, D);
        proxy.layers.at(l) = {std::move(in.proxy), {}};
        readout->effective.rows.at(l) = std::move(in.readout);
        if (calibration) calibration->rows.at(l) = std::move(*in.calibration);
        residual_scale.at(l) = in.residual_scale;
        proxy.layers[l].mean = xt::mean((*content_rows())[l], {0});
    }

    /// Reads every layer's pass from `inputs` from now on, instead of running it.
    void read_shared_layers(const shard_inputs_reader& inputs)
    {
        if (!stepper) return;  // no pass to replace: the file lacks the forward pass's tensors
        stepper.reset();
        shared = &inputs;
    }

    /// The mean over the token chunks' rows of what the next layer's norm divides its input by:
    /// sqrt(mean(x^2) + eps), of x less its mean under LayerNorm.
    [[nodiscard]] double token_residual_scale(std::size_t chunks) const
    {
        const auto& c = pass.decoder->config();
        double sum = 0;
        std::size_t count = 0;
        for (std::size_t r = 0; r < chunks; ++r) {
            const auto& x = stepper->residuals().at(r + 1);
            const std::size_t D = x.shape()[1];
            for (const auto& [row, at] : readout->effective.reads.at(r)) {
                double mean = 0, square = 0;
                if (c.norm == io::norm_kind::layer_norm) {
                    for (std::size_t j = 0; j < D; ++j) mean += x(at, j);
                    mean /= static_cast<double>(D);
                }
                for (std::size_t j = 0; j < D; ++j) square += (x(at, j) - mean) * (x(at, j) - mean);
                sum += std::sqrt(square / static_cast<double>(D) + c.norm_eps), ++count;
            }
        }
        return count == 0 ? 1.0 : sum / static_cast<double>(count);
    }

    /// Lets go of layer l's content rows (its proxy input, N + 1 rows, stays).
    void release(std::size_t l)
    {
        if (readout && l < readout->effective.rows.size()) readout->effective.rows[l] = matrix();
        if (calibration && l < calibration->rows.size()) calibration->rows[l] = matrix();
    }
};


inline model_evidence read_model_evidence(const model::attention_model& m, const scan_options& options)
{
    const auto& t = options.thresholds;
    model_evidence e;
    e.pass = open_model_pass(m);
    const auto& pass = e.pass;
    e.proxy = run_proxy_pass(m, pass, t.queries);
    if (pass.decoder) {
        e.readout = read_token_readout(*pass.decoder, e.proxy.bos, t.copy_tokens, e.proxy.positions);
        if (!options.calibration.empty()) e.calibration = text_inputs(*pass.decoder, e.proxy.bos, options.calibration, t.copy_tokens);
        e.residual_scale.assign(m.config().layers, 1.0);
        std::vector<numeric::tensor2<double>> runs{numeric::tensor2<double>(e.proxy.sequence)};
        for (auto* inputs : {&e.readout->effective, e.calibration ? &*e.calibration : nullptr})
            if (inputs) std::move(inputs->runs.begin(), inputs->runs.end(), std::back_inserter(runs)), inputs->runs.clear();
        e.stepper.emplace(*e.pass.decoder, std::move(runs));
        if (e.calibration)
            e.proxy.description += "; mu_l and the content from " + std::to_string(e.calibration->position.size()) + " positions of the calibration text " +
                                   options.calibration_name;
        else
            e.proxy.description += "; mu_l and the content from " + std::to_string(e.readout->tokens.size()) +
                                   " tokens in a seeded random context (chunks of " + std::to_string(e.proxy.positions) + " after BOS)";
    } else if (!options.calibration.empty()) {
        throw std::invalid_argument("qkov: --calibrate needs the model's forward pass: " + pass.unavailable);
    } else {
        e.readout_missing = "no per-token copying without the forward pass: " + pass.unavailable;
        if (!e.proxy.layers.empty()) {
            // Layer 0 reads each token's embedding through its norm, which needs no earlier block: its
            // content and mu_0 are the full pass's, so its prediction and certificates are too.
            const auto positions = m.position_embedding();
            auto inputs = effective_embeddings([&](const std::vector<forward::token_id>& s) { return model_embedding(m, positions, s); }, 1, e.proxy.bos,
                                               copying_tokens(m.config().vocab_size, t.copy_tokens), e.proxy.positions);
            const auto norm = m.layer(0).norm;
            for (std::size_t r = 0; r < inputs.runs.size(); ++r) inputs.receive(0, r, numeric::tensor2<double>(through_norm(norm, matrix(inputs.runs[r]))));
            inputs.runs.clear();
            e.proxy.layers[0].mean = xt::mean(inputs.rows[0], {0});
            e.proxy.description += "; mu_0 and the content from " + std::to_string(inputs.position.size()) + " tokens in a seeded random context (chunks of " +
                                   std::to_string(e.proxy.positions) + " after BOS), through layer 0's norm";
            e.layer_zero = std::move(inputs);
        }
    }
    return e;
}

/// The mean-field prediction of a head, with its per-token copying (copying_per_token, for its
/// whole layer at once; null when the model has no read-out), and its labels from them.
/// The mean-field prediction of head h on its layer's proxy input (nullopt when the layer has none),
/// with its certificates when `certify`.
inline std::optional<mean_field_evidence> predicted_attention_of(const model::head_weights& h, const model::layer_weights& lw, const io::model_config& config,
                                                                 const model_evidence& evidence, const scan_options& options, bool certify)
{
    const auto& t = options.thresholds;
    const auto* input = evidence.proxy.at(h.layer);
    if (input == nullptr) return std::nullopt;
    std::optional<token_contents> tokens;  // the tokens' own content, drawn into the prediction
    if (const auto* rows = evidence.content_rows(); rows && h.layer < rows->size())
        tokens = project_token_contents(h, (*rows)[h.layer], t.content_tokens,
                                        evidence.proxy.learned_positions ? evidence.content_positions() : std::vector<std::size_t>{},
                                        evidence.content_predecessors());
    auto e = mean_field_of(h, *input, evidence.proxy.learned_positions, config.rope_at(h.layer), lw.norm, {t.window, t.queries},
                           {certify, t.offset_mass, t.sink, t.content_deviations}, tokens ? &*tokens : nullptr);
    e.inputs_sha256 = certificate_inputs_sha256(input->normed, input->mean, e.widths);
    return e;
}

/// A head's labels from its evidence (head_labels.hpp), what is absent named by the evidence's reasons.
inline head_labels labels_of(const head_metrics& m, const model_evidence& evidence, const label_thresholds& t)
{
    label_evidence e;
    if (m.mean_field) e.mean_field = &*m.mean_field;
    else e.mean_field_missing = evidence.proxy.missing;
    if (m.per_token_copying) e.copying = &*m.per_token_copying;
    else e.copying_missing = evidence.readout_missing;
    e.centred_copying_score = m.centred_copying_score;
    if (m.circuits && m.circuits->circuit) e.circuit = &*m.circuits->circuit;
    return label_head(m.structure, e, t);
}

/// The mean-field prediction of a head, with its per-token copying (copying_per_token, for its
/// whole layer at once; null when the model has no read-out), and its labels from them.
inline void label_head_from_evidence(const model::head_weights& h, const model::layer_weights& lw, const io::model_config& config,
                                     const model_evidence& evidence, const token_copying* copying, const scan_options& options, head_metrics& m)
{
    m.mean_field = predicted_attention_of(h, lw, config, evidence, options, options.certify);
    if (copying) m.per_token_copying = *copying;
    m.labels = labels_of(m, evidence, options.thresholds);
}

/// The circuit search over the read-out's tokens, when the scan searches and has a read-out.
inline std::optional<layer_circuits> open_circuits(const model::attention_model& m, const model_evidence& evidence, const scan_options& options)
{
    const auto& t = options.thresholds;
    std::optional<layer_circuits> circuits;
    if (evidence.readout && options.search_circuits)
        circuits.emplace(evidence.readout->tokens.size(), t.circuit_tokens, m.config().hidden_size,
                         circuit_search_settings{.window = t.window, .context = evidence.proxy.positions, .threshold = t.circuit_share,
                                                  .copying_precision = options.precision, .partner_bound_scale = options.partner_bound_scale});
    return circuits;
}

/// The settings a scan resolves from the model when the caller leaves them: the context.
inline void resolve_scan_defaults(const model::attention_model& m, scan_options& options)
{
    auto& context = options.thresholds.context;
    if (context == 0)
        context = m.config().max_positions != 0 ? std::min(m.config().max_positions, largest_default_context) : label_thresholds::default_context;
}

/// What the earlier layers write, for the circuit search (layer_circuits.hpp): each head's
/// predicted attention by offset with its layer's writes; nullptr when the head has none.
inline std::vector<const mean_field_evidence*> attention_by_offset(const std::vector<head_metrics>& metrics)
{
    std::vector<const mean_field_evidence*> out;
    for (const auto& m : metrics) out.push_back(m.mean_field ? &*m.mean_field : nullptr);
    return out;
}

/// A layer's heads' predicted attention by offset written into the circuits as the whole scan
/// writes them (no certificates: the same numbers), for the layers below a shard's first.
inline void write_into_circuits(const model::attention_model& m, std::size_t l, const scan_options& options, const model_evidence& evidence,
                                layer_circuits& circuits)
{
    const auto lw = m.layer(l);
    std::vector<head_metrics> context(lw.heads.size());
    numeric::for_each_block(lw.heads.size(), [&](std::size_t i) {
        context[i].mean_field = predicted_attention_of(lw.heads[i], lw, m.config(), evidence, options, false);
    });
    circuits.add_layer(lw.heads, attention_by_offset(context), evidence.readout->effective.rows.at(l));
}

/// What a layer before a shard's first gives the shard: the pass through it and its circuit writes.
inline void carry_earlier_layer(const model::attention_model& m, std::size_t l, const scan_options& options, model_evidence& evidence,
                                std::optional<layer_circuits>& circuits)
{
    evidence.advance_to(l);
    if (circuits) write_into_circuits(m, l, options, evidence, *circuits);
    evidence.release(l);
}

inline scan_result scan_model(const model::attention_model& m, scan_options options = {})
{
    resolve_scan_defaults(m, options);
    const std::size_t layers = m.config().layers;
    const std::size_t last = options.last_layer.value_or(layers == 0 ? 0 : layers - 1);
    if (layers == 0) throw std::invalid_argument("qkov: the model has no layers to scan");
    if (options.first_layer > last || last >= layers)
        throw std::invalid_argument("qkov: layers " + std::to_string(options.first_layer) + "-" + std::to_string(last) + " are not within 0-" +
                                    std::to_string(layers - 1));
    // Every BLAS call of the scan runs on one thread; the threads are the run-time layer's blocks
    // (heads, composition sources, the token circuit's columns), whose split is fixed by the
    // model, not by the thread count: so the document is the same to the bit for any --threads.
    // (OpenBLAS's own threads split a product by their number: 3 of them changed T3's last bits.)
    const numeric::single_threaded_blas blas_on_one_thread;
    scan_result result;
    model_evidence evidence = read_model_evidence(m, options);
    // A shard's inputs prepared once for every shard (shard_inputs.hpp): W_E^T W_U, what the pass
    // gives each of its layers and the circuit writes at its first; the numbers it would compute.
    std::optional<shard_inputs_reader> shared;
    if (!options.shared_inputs.empty()) shared.emplace(options.shared_inputs, shard_inputs_identity(m, options, evidence.proxy.mean_embedding));
    std::optional<token_side> shared_tokens;
    if (shared) shared_tokens = shared->common(m.config().hidden_size, m.config().vocab_size);
    auto [tokens, vocabulary] = shared_tokens ? std::move(*shared_tokens) : read_token_side(m);
    const embedding_sample sample = sample_embedding(m, options.token_sample);
    if (sample.rows != 0) result.tokens_sampled = sample.rows, result.vocabulary = vocabulary;
    result.copying_available = tokens.has_value();
    result.proxy_description = evidence.proxy.description, result.proxy_missing = evidence.proxy.missing;
    result.input = !options.input.empty()            ? options.input
                   : options.calibration.empty() ? std::string(scan_json_keys::input_random_tokens)
                                                 : scan_json_keys::input_file + options.calibration_name;
    result.copy_tokens = evidence.readout ? evidence.readout->tokens.size() : 0;
    result.thresholds = options.thresholds;
    result.precision = options.precision;
    result.fingerprint = model::fingerprint_of(m);
    // The pairs whose later head is in first..last: the layers before `first` are read only for
    // what their heads write, so scans of disjoint layer ranges share the pairs out, none lost or
    // repeated (scan_merge.hpp joins them).
    // The circuit search needs the forward pass's token rows at every layer (the read-out's).
    const auto& t = options.thresholds;
    auto circuits = open_circuits(m, evidence, options);
    if (shared) {
        evidence.read_shared_layers(*shared);
        if (circuits && options.first_layer > 0)
            circuits->restore(shared->circuit_writes(options.first_layer, t.window, circuits->tokens(), m.config().hidden_size, m.config().heads));
    }
    std::vector<layer_composition_factors> earlier;
    for (std::size_t l = 0; l < options.first_layer; ++l) {
        earlier.push_back(written_factors(m.layer(l).heads, options.precision));
        earlier.back().writes = matrix();  // read again for each pair (layer_composition_factors)
        if (!shared) carry_earlier_layer(m, l, options, evidence, circuits);
    }
    using clock = std::chrono::steady_clock;
    const auto seconds_since = [](clock::time_point t) { return std::chrono::duration<double>(clock::now() - t).count(); };
    for (std::size_t l = options.first_layer; l <= last; ++l) {
        const auto layer_start = clock::now();
        evidence.advance_to(l);
        const double pass_seconds = seconds_since(layer_start);
        const auto copying_start = clock::now();
        auto lw = m.layer(l);
        const std::size_t H = lw.heads.size();
        std::vector<head_factors> factors(H);
        std::vector<head_metrics> metrics(H);
        // The heads are independent: one block each, on --threads workers with BLAS on each
        // worker's own thread (parallel_blocks.hpp), so a head's numbers do not depend on the
        // thread count. A failure is kept per head and the first head's rethrown, as in order.
        // The per-token copying of the layer's heads: one pass over the vocabulary for all of them.
        const std::vector<token_copying> copying = evidence.readout ? copying_per_token(lw.heads, *evidence.readout, *evidence.pass.decoder, 512, 512, nullptr, options.precision)
                                                                    : std::vector<token_copying>{};
        const double copying_seconds = seconds_since(copying_start);
        std::vector<std::exception_ptr> failures(H);
        numeric::for_each_block(H, [&](std::size_t i) {
            try {
                const auto& h = lw.heads[i];
                factors[i] = factor_head(h);
                metrics[i] = measure_head(h, factors[i]);
                if (tokens) {  // nullopt also when the head's eigenvalues all vanish
                    const auto scores = copying_scores(h, *tokens);
                    metrics[i].copying_score = scores.plain;
                    metrics[i].centred_copying_score = scores.centred;
                }
                describe_head(h, factors[i], m.config(), sample, lw.norm, options, metrics[i]);
                label_head_from_evidence(h, lw, m.config(), evidence, copying.empty() ? nullptr : &copying[i], options, metrics[i]);
                // Composition needs the Rs only: the D x d Qs go now (Llama-3-8B: 537 MB a layer).
                for (thin_qr* f : {&factors[i].q, &factors[i].k, &factors[i].v, &factors[i].o}) f->q = matrix();
            } catch (...) {
                failures[i] = std::current_exception();
            }
        });
        for (const auto& f : failures)
            if (f) std::rethrow_exception(f);
        if (const auto* input = evidence.proxy.at(l); input && options.keep_proxy_inputs) result.proxy_inputs.push_back({l, input->normed, input->mean});
        auto mine = composition_factors(lw.heads, factors, metrics, options.precision);
        // The composition reads the layer through its factors only: its weights (0.54 GB at
        // Llama-3-8B's shape, the largest part of a deep layer's heap while it composes) go now and
        // the circuit search reads them from the file again (the same values).
        lw.heads = {};
        layer_timing timing{l, seconds_since(layer_start), 0.0, pass_seconds, copying_seconds, 0.0};
        const auto composition_start = clock::now();
        std::atomic<double> t3_seconds = 0.0;
        for (auto& e : earlier) {
            e.writes = m.layer_output(e.layer);  // the same values layer() gave: the same bits
            compose(e, mine, result.composition, &t3_seconds, options.precision);
            e.writes = matrix();
        }
        timing.composition_seconds = seconds_since(composition_start);
        timing.t3_seconds = t3_seconds.load();
        // A float32 scan's copy of the stack (100 MB a layer at Llama-3-8B's shape) served the
        // products above only: the partners' float64 blocks read the float64 stack. Gone before the
        // circuit search, where a deep layer's heap peaks.
        std::vector<float>().swap(mine.reads32);
        if (circuits) {
            // The layer's heads against what the layers above wrote (the pairs into it name the
            // partners), then its own writes for the layers below.
            const auto circuit_start = clock::now();
            lw = m.layer(l);
            const matrix& rows = evidence.readout->effective.rows.at(l);
            // A pair the partners need in float64: its block of sources made again as the float64
            // scan makes it, kept for the layer's search; its source layer's W_o read again, one
            // layer's at a time.
            std::map<std::pair<std::size_t, std::size_t>, std::pair<std::size_t, std::vector<composition_score>>> float64_blocks;
            std::optional<std::size_t> loaded;
            const auto float64 = [&](std::size_t source_layer, std::size_t source_head, std::size_t target_head) {
                auto& e = earlier.at(source_layer);
                if (e.layer != source_layer) throw std::logic_error("qkov: the earlier layers' factors are not in layer order");
                const std::size_t group = source_head / layer_pair_products::sources_per_block(e.heads, mine.d);
                auto it = float64_blocks.find({source_layer, group});
                if (it == float64_blocks.end()) {
                    if (loaded != source_layer) {
                        if (loaded) earlier[*loaded].writes = matrix();
                        e.writes = m.layer_output(source_layer), loaded = source_layer;
                    }
                    it = float64_blocks.emplace(std::pair{source_layer, group}, float64_block(e, source_head, mine)).first;
                    result.composition_recomputed += it->second.second.size();
                }
                const auto& c = it->second.second.at((source_head - it->second.first) * mine.heads + target_head);
                if (c.source_layer != source_layer || c.source_head != source_head || c.target_head != target_head)
                    throw std::logic_error("qkov: a float64 block does not hold the pair asked for");
                return c;
            };
            circuits->search_layer(lw, rows, evidence.residual_scale.at(l), evidence.proxy.learned_positions ? std::nullopt : m.config().rope_at(l),
                                   result.composition, float64, &*evidence.readout, evidence.pass.decoder.get(), metrics);
            if (loaded) earlier[*loaded].writes = matrix();
            for (auto& mt : metrics) mt.labels = labels_of(mt, evidence, t);
            circuits->add_layer(lw.heads, attention_by_offset(metrics), rows);
            timing.circuit_seconds = seconds_since(circuit_start);
            timing.heads_seconds += timing.circuit_seconds;
        }
        evidence.release(l);
        // As the earlier layer of its pairs the layer needs only R_v: what it reads (and R_o, R_q)
        // go, and later layers read what it writes from the file (Llama-3-8B: 4 MB a layer kept
        // instead of 13, 0.26 GB less over 32 layers).
        mine.reads = matrix();
        mine.r_o = {}, mine.r_q = {};
        mine.read_norms = {}, mine.r_o_norm = {}, mine.r_q_norm = {};
        earlier.push_back(std::move(mine));
        if (options.on_layer) options.on_layer(l, metrics, timing);
        result.heads.insert(result.heads.end(), metrics.begin(), metrics.end());
    }
    return result;
}

} // namespace qkov::scan
