// The scan's certificates checked from outside: every certified bound recomputed at 50 digits
// (certificate_reference.hpp, Boost.Multiprecision, written apart from the library's interval
// code) from the inputs the scan says it is conditional on, read back from `--dump-proxy`'s file;
// and, for each certified rule, a head tuned to 1e-9 either side of the rule's threshold is
// certified on the right side only: with the content's widths (the full forward pass) and without
// them (the layer-0 fallback of a file that lacks the rest of the pass).
#define BOOST_TEST_MODULE certificates
#include <boost/test/unit_test.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "qkov/io/open_checkpoint.hpp"
#include "qkov/io/sha256.hpp"
#include "qkov/io/tensor_block.hpp"
#include "qkov/scan/head_prediction.hpp"
#include "qkov/scan/proxy_dump.hpp"
#include "qkov/scan/scan_model.hpp"
#include "model_runs.hpp"
#include "certificate_reference.hpp"
#include "model_variants.hpp"
#include "shared_dir.hpp"

using namespace qkov;
using test::real50;

namespace {

/// A dump (scan/proxy_dump.hpp) read back with qkov's safetensors reader.
struct proxy_dump {
    std::unique_ptr<io::tensor_source> source;

    [[nodiscard]] std::vector<double> values(const std::string& name) const
    {
        const auto* t = source->find(name);
        if (t == nullptr) return {};
        std::vector<double> v(t->count);
        io::read_block(*t, 0, io::stored_rows(*t), 0, io::stored_columns(*t), {v.data(), io::stored_columns(*t), 1});
        return v;
    }
    [[nodiscard]] std::vector<std::vector<double>> rows(const std::string& name) const
    {
        const auto* t = source->find(name);
        BOOST_REQUIRE(t != nullptr);
        const auto v = values(name);
        const std::size_t columns = io::stored_columns(*t);
        std::vector<std::vector<double>> out;
        for (std::size_t r = 0; r < io::stored_rows(*t); ++r) out.emplace_back(v.begin() + static_cast<std::ptrdiff_t>(r * columns), v.begin() + static_cast<std::ptrdiff_t>((r + 1) * columns));
        return out;
    }
};

/// What the reference needs of one head, from the dump.
test::certificate_inputs inputs_from_dump(const proxy_dump& d, const model::head_weights& h, const io::model_config& c, bool learned)
{
    test::certificate_inputs in;
    in.head = &h;
    const std::string layer = "layer." + std::to_string(h.layer);
    in.proxy = d.rows(layer + ".proxy");
    in.mean = d.values(layer + ".mean");
    in.learned_positions = learned;
    in.rope = learned ? std::nullopt : c.rope_at(h.layer);
    const auto widths = d.values("head." + std::to_string(h.layer) + "." + std::to_string(h.head) + ".widths");
    if (!widths.empty()) {
        in.lower.assign(widths.begin(), widths.begin() + static_cast<std::ptrdiff_t>(widths.size() / 2));
        in.upper.assign(widths.begin() + static_cast<std::ptrdiff_t>(widths.size() / 2), widths.end());
    }
    return in;
}

/// The SHA-256 a head's inputs are named by, recomputed from the dump's bytes.
std::string sha256_from_dump(const proxy_dump& d, const model::head_weights& h)
{
    io::sha256 s;
    const std::string layer = "layer." + std::to_string(h.layer);
    for (const std::string& name : {layer + ".proxy", layer + ".mean", "head." + std::to_string(h.layer) + "." + std::to_string(h.head) + ".widths"}) {
        const auto v = d.values(name);
        s.update(v.data(), v.size() * sizeof(double));
    }
    return s.hex();
}

struct bound_check {
    std::size_t bounds = 0, certified = 0;
};

/// One certified bound against its 50-digit value: sound (never above the smallest mass the
/// widths allow) and tight (within 1e-9 of it).
void check_bound(const std::string& what, double lower, const real50& exact, bound_check& count)
{
    BOOST_TEST(real50(lower) <= exact, what << ": certified lower bound " << lower << " above the exact " << exact.str(20));
    BOOST_TEST(static_cast<double>(exact - real50(lower)) <= 1e-9, what << ": certified lower bound " << lower << " loose against " << exact.str(20));
    ++count.bounds;
}

/// Every lower bound a scan's head carries, recomputed from the dump.
void check_scan(const model::attention_model& m, const scan::scan_result& r, const proxy_dump& d, bound_check& count)
{
    for (const auto& h : r.heads) {
        if (!h.mean_field) continue;
        const auto& e = *h.mean_field;
        const auto weights = m.layer(h.layer).heads[h.head];
        const std::string name = m.source().location() + " head " + std::to_string(h.layer) + "." + std::to_string(h.head);
        BOOST_TEST(sha256_from_dump(d, weights) == e.inputs_sha256, name << ": the JSON's checksum names other inputs than the dump holds");
        const auto in = inputs_from_dump(d, weights, m.config(), e.positions == "learned");
        BOOST_TEST(in.lower.empty() == !e.widths.has_value(), name);
        const test::certificate_reference ref(in);
        if (e.previous_lower) check_bound(name + " previous_token", *e.previous_lower, ref.previous_token(), count);
        if (e.bos_lower) check_bound(name + " sink", *e.bos_lower, ref.bos(), count);
        for (std::size_t k = 0; k < e.by_offset_lower.size(); ++k)
            if (e.by_offset[k] >= r.thresholds.offset_mass) check_bound(name + " offset_" + std::to_string(k), e.by_offset_lower[k], ref.offsets(e.window, {k}), count);
        if (e.top_two_lower) {
            std::vector<std::size_t> order(e.by_offset.size());
            for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
            std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return e.by_offset[a] > e.by_offset[b]; });
            check_bound(name + " positional", *e.top_two_lower, ref.offsets(e.window, {order[0], order[1]}), count);
        }
        count.certified += h.labels.certified.size();
    }
}

/// Scans `path` keeping its proxy inputs, writes the dump, reads it back and checks every bound.
bound_check scan_and_check(const std::filesystem::path& path, const std::filesystem::path& dump_file)
{
    const auto m = qkov::runs::open_model(path);
    scan::scan_options options;
    options.keep_proxy_inputs = true;
    options.search_circuits = false;  // no certificate reads it: a third of this suite's time
    const auto r = qkov::runs::scan_model(m, options);
    scan::write_proxy_dump(dump_file, r);
    const proxy_dump d{io::open_safetensors_checkpoint(dump_file)};
    bound_check count;
    check_scan(m, r, d, count);
    BOOST_TEST_MESSAGE(path.string() << ": " << count.bounds << " bounds recomputed, " << count.certified << " certified labels");
    return count;
}

/// The MLP tensors of a model directory: left out, the forward pass cannot run, so the scan takes
/// layer 0's input from the embedding alone (the fallback).
std::set<std::string> mlp_tensors(const std::filesystem::path& dir)
{
    std::set<std::string> names;
    const auto source = io::open_safetensors_checkpoint(dir / "model.safetensors");
    for (const auto& n : source->names())
        if (n.find(".mlp.") != std::string::npos) names.insert(n);
    return names;
}

} // namespace

BOOST_AUTO_TEST_CASE(certified_bounds_of_trained_models_hold_at_50_digits)
{
    bound_check all;
    for (const char* name : {"trained_models/llama_rope_induction", "trained_models/neox_partial_rotary", "trained_models/gpt2_learned_positions",
                             "trained_models/llama_nope_layer", "real_models/llama2c-stories260K/hf"}) {
        const auto dir = test::shared_dir_or_skip(name);
        if (dir.empty()) return;
        const auto scratch = test::scratch_directory("certificates");
        const auto count = scan_and_check(dir, scratch / "proxy.safetensors");
        all.bounds += count.bounds, all.certified += count.certified;
        std::filesystem::remove_all(scratch);
    }
    // Not vacuous: the trained models' previous-token heads are certified.
    BOOST_TEST(all.certified > 0u);
    BOOST_TEST(all.bounds > 0u);
}

// Without the forward pass (an attention-only file) layer 0 still has its inputs, from the
// embedding through its norm: its bounds hold at 50 digits, and are the full pass's own.
BOOST_AUTO_TEST_CASE(certified_bounds_of_the_layer_zero_fallback_hold_at_50_digits)
{
    for (const char* name : {"trained_models/llama_rope_induction", "trained_models/gpt2_learned_positions"}) {
        const auto trained = test::shared_dir_or_skip(name);
        if (trained.empty()) return;
        const auto scratch = test::scratch_directory("certificates-fallback");
        test::model_variant v;
        v.drop = mlp_tensors(trained);
        test::write_model_variant(trained, scratch / "attention-only", v);
        const auto count = scan_and_check(scratch / "attention-only", scratch / "proxy.safetensors");
        BOOST_TEST(count.bounds > 0u, name);
        const auto fallback = qkov::runs::scan_model(qkov::runs::open_model(scratch / "attention-only"));
        const auto full = qkov::runs::scan_model(qkov::runs::open_model(trained));
        std::size_t compared = 0;
        for (std::size_t i = 0; i < fallback.heads.size(); ++i) {
            const auto& a = fallback.heads[i];
            if (a.layer != 0) {
                BOOST_TEST(!a.mean_field.has_value(), name << ": layer " << a.layer << " has a mean field without the forward pass");
                continue;
            }
            BOOST_REQUIRE(a.mean_field && full.heads[i].mean_field);
            const auto& e = *a.mean_field;
            const auto& f = *full.heads[i].mean_field;
            BOOST_TEST(e.by_offset == f.by_offset, name << " head 0." << a.head);
            BOOST_TEST(e.previous == f.previous);
            BOOST_TEST(e.bos == f.bos);
            BOOST_TEST((e.previous_lower == f.previous_lower));
            BOOST_TEST((e.bos_lower == f.bos_lower));
            BOOST_TEST(e.inputs_sha256 == f.inputs_sha256);
            BOOST_TEST(a.labels.certified == full.heads[i].labels.certified);
            ++compared;
        }
        BOOST_TEST(compared > 0u);
        std::filesystem::remove_all(scratch);
    }
}

namespace {

/// A head built to put its attention where a rule looks, with the sharpness alpha: D = d = 4, one
/// RoPE pair (theta = 1 per position) and two unrotated dimensions. The proxy's content positions
/// read e_0, BOS reads e_2; q = alpha (1, 0, c, 0) and k = (cos phi, sin phi, 0, 0), k_bos =
/// (0, 0, beta, 0), so s(delta) = alpha cos(delta - phi) / 2 and the BOS score alpha c beta / 2.
struct built_head {
    double phi = 1, c = 0, beta = 0;

    [[nodiscard]] model::head_weights at(double alpha) const
    {
        model::head_weights h;
        h.w_q = xt::zeros<double>({4, 4}), h.w_k = xt::zeros<double>({4, 4});
        h.w_v = xt::zeros<double>({4, 4}), h.w_o = xt::zeros<double>({4, 4});
        h.w_q(0, 0) = alpha, h.w_q(2, 0) = alpha * c;
        h.w_k(0, 0) = std::cos(phi), h.w_k(1, 0) = std::sin(phi), h.w_k(2, 2) = beta;
        return h;
    }
};

// Six positions: the one pair turns by 1 per position, and offsets past 6 would come back near offset 1
// (cos 6 = 0.96), leaving the widths no room.
constexpr std::size_t positions = 6, window = 3;

scan::proxy_layer built_proxy()
{
    model::matrix rows = xt::zeros<double>({positions + 1, std::size_t{4}});
    rows(0, 2) = 1;
    for (std::size_t t = 1; t <= positions; ++t) rows(t, 0) = 1;
    return scan::proxy_layer_of(rows);
}

/// Effective embeddings around the content positions' input: e_0 plus seeded noise of 0.05.
model::matrix built_contents()
{
    std::mt19937_64 rng(7);
    std::normal_distribution<double> noise(0, 0.05);
    model::matrix rows = xt::zeros<double>({std::size_t{48}, std::size_t{4}});
    for (std::size_t t = 0; t < rows.shape()[0]; ++t)
        for (std::size_t j = 0; j < 4; ++j) rows(t, j) = (j == 0 ? 1.0 : 0.0) + noise(rng);
    return rows;
}

const io::rope_config built_rope{rope_pairing::rotate_half, 2, 10000.0, std::nullopt};

/// One certified rule: the quantity the reference computes, the evidence's lower bound, the label.
struct rule_case {
    std::string label;
    built_head head;
    double threshold;
    std::function<real50(const test::certificate_reference&)> exact;
    std::function<std::optional<double>(const scan::mean_field_evidence&)> lower;
};

std::vector<rule_case> rule_cases()
{
    return {
        {"previous_token", {1, 0, 0}, 0.5, [](const auto& r) { return r.previous_token(); }, [](const auto& e) { return e.previous_lower; }},
        {"offset_2", {2, 0, 0}, 0.5, [](const auto& r) { return r.offsets(window, {2}); },
         [](const auto& e) { return e.by_offset_lower.empty() ? std::nullopt : std::optional<double>(e.by_offset_lower[2]); }},
        {"positional", {1.5, 0, 0}, 0.5, [](const auto& r) { return r.offsets(window, {1, 2}); }, [](const auto& e) { return e.top_two_lower; }},
        {"sink", {1, 1, 2}, 0.3, [](const auto& r) { return r.bos(); }, [](const auto& e) { return e.bos_lower; }},
    };
}

} // namespace

// For each certified rule, the head scaled so that the exact smallest mass (50 digits) sits 1e-9
// above or below the threshold: the certificate holds above and not below. With the content's
// widths (as the full forward pass gives them) and without (as the layer-0 fallback has none).
BOOST_AUTO_TEST_CASE(each_certified_rule_holds_only_on_the_right_side_of_its_threshold)
{
    const auto proxy = built_proxy();
    const auto contents = built_contents();
    scan::label_thresholds thresholds;
    thresholds.window = window;
    model::norm_weights norm;
    norm.weight = xt::ones<double>({std::size_t{4}});
    for (const auto& rule : rule_cases())
        for (const bool with_content : {true, false}) {
            const std::string name = rule.label + (with_content ? " with the content's widths" : " without widths");
            // Everything the scan computes for the head at alpha, and the exact smallest mass.
            const auto evaluate = [&](double alpha) {
                const auto h = rule.head.at(alpha);
                std::optional<scan::token_contents> tokens;
                if (with_content) tokens = scan::project_token_contents(h, contents, 64);
                const auto e = scan::mean_field_of(h, proxy, false, built_rope, norm, {window, positions}, {true, 0.5, 0.3, 2}, tokens ? &*tokens : nullptr);
                test::certificate_inputs in{&h, {}, {proxy.mean.begin(), proxy.mean.end()}, false, built_rope, {}, {}};
                for (std::size_t t = 0; t <= positions; ++t) in.proxy.emplace_back(xt::row(proxy.normed, t).begin(), xt::row(proxy.normed, t).end());
                if (tokens) {
                    const auto w = scan::widths_of(scan::content_score_spread(h, proxy, false, built_rope, *tokens), 2);
                    in.lower = w.lower, in.upper = w.upper;
                }
                return std::pair{e, rule.exact(test::certificate_reference(in))};
            };
            // alpha with exact = threshold + target, by bisection (the mass grows with alpha here).
            const auto solve = [&](double target) {
                double low = 0, high = 64;
                BOOST_REQUIRE_MESSAGE(evaluate(high).second > real50(rule.threshold + target), name << ": " << evaluate(high).second.str(8) << " at alpha " << high);
                BOOST_REQUIRE_MESSAGE(evaluate(low).second < real50(rule.threshold + target), name << ": " << evaluate(low).second.str(8) << " at alpha " << low);
                for (int i = 0; i < 200 && high - low > 1e-15 * high; ++i) {
                    const double mid = (low + high) / 2;
                    (evaluate(mid).second < real50(rule.threshold + target) ? low : high) = mid;
                }
                return high;
            };
            for (const double side : {+1e-9, -1e-9}) {
                const auto [e, exact] = evaluate(solve(side));
                const double off = static_cast<double>(exact - real50(rule.threshold));
                BOOST_TEST(off * side > 0, name << ": the head is on the wrong side (" << off << ")");
                BOOST_TEST(std::abs(off) < 2e-9, name << ": the head is " << off << " from the threshold, not 1e-9");
                const auto labels = scan::label_head({}, {&e, "", nullptr, "no read-out", std::nullopt}, thresholds);
                const bool certified = std::find(labels.certified.begin(), labels.certified.end(), rule.label) != labels.certified.end();
                if (side > 0) {
                    const auto lower = rule.lower(e);
                    BOOST_REQUIRE_MESSAGE(lower.has_value(), name << ": no bound computed 1e-9 above the threshold");
                    BOOST_TEST(*lower >= rule.threshold, name << ": bound " << *lower << " 1e-9 above the threshold");
                    BOOST_TEST(certified, name << ": not certified 1e-9 above its threshold");
                } else {
                    if (const auto lower = rule.lower(e)) BOOST_TEST(*lower < rule.threshold, name << ": bound " << *lower << " 1e-9 below the threshold");
                    BOOST_TEST(!certified, name << ": certified 1e-9 below its threshold");
                }
            }
        }
}

namespace {

/// A trained head of layer 0 whose queries are scaled: W_q and b_q times alpha, in the tensors of
/// its family's layout (a variant's edit) and in memory (for the reference), the same products.
struct scaled_head {
    std::string model, label;
    std::size_t head;
    double threshold;

    /// The edit that scales head `head`'s queries in layer 0 of the file.
    [[nodiscard]] std::function<void(const std::string&, const std::vector<std::size_t>&, std::vector<double>&)> edit(double alpha, std::size_t d) const
    {
        const std::size_t h = head;
        return [h, d, alpha](const std::string& name, const std::vector<std::size_t>& shape, std::vector<double>& v) {
            if (name == "transformer.h.0.attn.c_attn.weight")  // Conv1D [D, 3D]: the queries are columns
                for (std::size_t r = 0; r < shape[0]; ++r)
                    for (std::size_t c = h * d; c < (h + 1) * d; ++c) v[r * shape[1] + c] *= alpha;
            if (name == "transformer.h.0.attn.c_attn.bias")
                for (std::size_t c = h * d; c < (h + 1) * d; ++c) v[c] *= alpha;
            if (name == "gpt_neox.layers.0.attention.query_key_value.weight") test::scale_rows(v, shape[1], 3 * h * d, d, alpha);
            if (name == "gpt_neox.layers.0.attention.query_key_value.bias")
                for (std::size_t i = 3 * h * d; i < 3 * h * d + d; ++i) v[i] *= alpha;
            if (name == "model.layers.0.self_attn.q_proj.weight") test::scale_rows(v, shape[1], h * d, d, alpha);
        };
    }

    /// The exact smallest mass the rule bounds; for `positional`, on the two offsets the scan's
    /// prediction ranks highest (those its certificate is about).
    [[nodiscard]] real50 exact(const test::certificate_reference& r, const scan::mean_field_evidence& e) const
    {
        if (label == "previous_token") return r.previous_token();
        if (label == "sink") return r.bos();
        if (label == "offset_3") return r.offsets(e.window, {3});
        std::vector<std::size_t> order(e.by_offset.size());
        for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
        std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return e.by_offset[a] > e.by_offset[b]; });
        return r.offsets(e.window, {order[0], order[1]});
    }
    [[nodiscard]] std::optional<double> lower(const scan::mean_field_evidence& e) const
    {
        if (label == "previous_token") return e.previous_lower;
        if (label == "sink") return e.bos_lower;
        if (label == "offset_3") return e.by_offset_lower.empty() ? std::nullopt : std::optional<double>(e.by_offset_lower[3]);
        return e.top_two_lower;
    }
};

} // namespace

// The same end to end on trained heads: each certified rule's head (gpt2_learned_positions 0.1's
// previous token, 0.0's offset 3 and its two offsets together; neox_partial_rotary 0.3's sink) with
// its queries scaled so that the exact smallest mass sits 1e-9 from the threshold, written to a
// file in float64 and scanned: certified above, not below, in the full pass and in the layer-0
// fallback of the same file without its MLP.
BOOST_AUTO_TEST_CASE(trained_heads_at_their_threshold_are_certified_only_on_the_right_side)
{
    const std::vector<scaled_head> cases = {{"trained_models/gpt2_learned_positions", "previous_token", 1, 0.5},
                                            {"trained_models/gpt2_learned_positions", "offset_3", 0, 0.5},
                                            {"trained_models/gpt2_learned_positions", "positional", 0, 0.5},
                                            {"trained_models/neox_partial_rotary", "sink", 3, 0.3}};
    for (const auto& c : cases) {
        const auto trained = test::shared_dir_or_skip(c.model);
        if (trained.empty()) return;
        for (const bool fallback : {false, true}) {
            const std::string name = c.model + " head 0." + std::to_string(c.head) + " " + c.label + (fallback ? " (layer-0 fallback)" : " (full pass)");
            const auto scratch = test::scratch_directory("certificates-threshold");
            const auto write = [&](double alpha, const std::filesystem::path& dir) {
                test::model_variant v;
                v.float64 = true;
                if (fallback) v.drop = mlp_tensors(trained);
                const auto config = qkov::runs::open_model(trained).config();
                v.edit = c.edit(alpha, config.head_dim);
                test::write_model_variant(trained, dir, v);
            };
            const auto scan_layer_zero = [&](const std::filesystem::path& dir) {
                scan::scan_options options;
                options.last_layer = 0, options.keep_proxy_inputs = true, options.search_circuits = false;
                return qkov::runs::scan_model(qkov::runs::open_model(dir), options);
            };
            // The inputs at alpha = 1: layer 0's proxy rows and contents do not depend on layer 0's
            // weights, and every width scales with the queries.
            write(1.0, scratch / "base");
            const auto base_model = qkov::runs::open_model(scratch / "base");
            const auto base = scan_layer_zero(scratch / "base");
            scan::write_proxy_dump(scratch / "base.safetensors", base);
            const proxy_dump d{io::open_safetensors_checkpoint(scratch / "base.safetensors")};
            const auto weights = base_model.layer(0).heads[c.head];
            const bool learned = base.heads[c.head].mean_field->positions == "learned";
            const auto model_at = [&](double alpha) {
                auto h = weights;
                h.w_q *= alpha;
                if (h.b_q.size()) h.b_q *= alpha;
                auto in = inputs_from_dump(d, h, base_model.config(), learned);
                for (auto& x : in.lower) x *= alpha;
                for (auto& x : in.upper) x *= alpha;
                return c.exact(test::certificate_reference(in), *base.heads[c.head].mean_field);
            };
            // The alpha whose exact mass is threshold + target, from above: the mass minus that
            // is in [0, 1e-11]. Regula falsi in the Illinois variant: the bracket always holds the
            // crossing (f(low) < 0 <= f(high)), and it needs about a dozen 50-digit evaluations
            // where bisection to 1e-15 in alpha took fifty.
            const auto solve = [&](double target) {
                const auto f = [&](double alpha) { return static_cast<double>(model_at(alpha) - real50(c.threshold + target)); };
                double low = 0, high = 1, f_low = f(low), f_high = f(high);
                BOOST_REQUIRE_MESSAGE(f_high > 0, name << ": " << model_at(high).str(8) << " at alpha 1");
                BOOST_REQUIRE_MESSAGE(f_low < 0, name << ": " << model_at(low).str(8) << " at alpha 0");
                double weight_low = f_low, weight_high = f_high;  // the Illinois variant halves a stale end's weight
                int last = 0;
                for (int i = 0; i < 200 && high - low > 1e-15 && f_high > 1e-11; ++i) {
                    double x = (low * weight_high - high * weight_low) / (weight_high - weight_low);
                    if (!(x > low && x < high)) x = (low + high) / 2;
                    const double fx = f(x);
                    if (fx < 0) {
                        low = x, f_low = weight_low = fx;
                        if (last < 0) weight_high /= 2;
                        last = -1;
                    } else {
                        high = x, f_high = weight_high = fx;
                        if (last > 0) weight_low /= 2;
                        last = +1;
                    }
                }
                return high;
            };
            for (const double side : {+1e-9, -1e-9}) {
                const auto dir = scratch / (side > 0 ? "above" : "below");
                write(solve(side), dir);
                const auto m = qkov::runs::open_model(dir);
                const auto r = scan_layer_zero(dir);
                scan::write_proxy_dump(dir / "proxy.safetensors", r);
                const proxy_dump own{io::open_safetensors_checkpoint(dir / "proxy.safetensors")};
                const auto h = m.layer(0).heads[c.head];
                const auto& e = *r.heads[c.head].mean_field;
                const real50 exact = c.exact(test::certificate_reference(inputs_from_dump(own, h, m.config(), learned)), e);
                const double off = static_cast<double>(exact - real50(c.threshold));
                BOOST_TEST(off * side > 0, name << ": the scaled head is on the wrong side (" << off << ")");
                BOOST_TEST(std::abs(off) < 2e-9, name << ": the scaled head is " << off << " from the threshold");
                const auto& certified = r.heads[c.head].labels.certified;
                const bool is_certified = std::find(certified.begin(), certified.end(), c.label) != certified.end();
                if (side > 0) {
                    BOOST_TEST(is_certified, name << ": not certified 1e-9 above its threshold (bound " << c.lower(e).value_or(-1) << ")");
                } else {
                    BOOST_TEST(!is_certified, name << ": certified 1e-9 below its threshold");
                    if (const auto lower = c.lower(e)) BOOST_TEST(*lower < c.threshold, name);
                }
            }
            std::filesystem::remove_all(scratch);
        }
    }
}
