// qkov.forward: the model's own forward pass (forward/forward_pass.hpp) from Python, its logits
// and, streamed or kept, every head's attention pattern (row = query, as TransformerLens' pattern
// hook holds it).
#include "bindings.hpp"

#include <limits>
#include <vector>

namespace qkov::python {

namespace {

std::vector<forward::token_id> token_ids(const py::array_t<long long, py::array::c_style | py::array::forcecast>& tokens)
{
    if (tokens.ndim() != 1) throw std::invalid_argument("qkov: tokens must be a one-dimensional sequence of token ids, got " + std::to_string(tokens.ndim()) + " dimensions");
    std::vector<forward::token_id> out;
    out.reserve(static_cast<std::size_t>(tokens.size()));
    const auto* data = tokens.data();
    for (py::ssize_t i = 0; i < tokens.size(); ++i) {
        if (data[i] < 0 || data[i] > std::numeric_limits<forward::token_id>::max())
            throw std::invalid_argument("qkov: token " + std::to_string(data[i]) + " at position " + std::to_string(i) + " is not a token id");
        out.push_back(static_cast<forward::token_id>(data[i]));
    }
    return out;
}

template <class T>
py::object run(model_handle& model, const std::vector<forward::token_id>& tokens, bool keep, const py::object& on_pattern)
{
    const auto& c = model.model().config();
    forward::kept_patterns<T> kept;
    forward::tensor2<T> logits;
    {
        const py::gil_scoped_release release;
        const auto pass = model.decoder<T>();
        forward::pattern_visitor<T> keep_visitor;
        if (keep) keep_visitor = forward::keep_patterns(kept, c.layers, c.heads);
        forward::pattern_visitor<T> visit;
        if (keep || !on_pattern.is_none())
            visit = [&](std::size_t l, std::size_t h, const forward::tensor2<T>& p) {
                if (keep_visitor) keep_visitor(l, h, p);
                if (!on_pattern.is_none()) {
                    const py::gil_scoped_acquire acquire;  // the callback is Python: it runs with the GIL
                    on_pattern(l, h, to_numpy(p));
                }
            };
        logits = pass->logits(tokens, visit);
    }
    py::object out = to_numpy(logits);
    if (!keep) return out;
    const std::size_t n = tokens.size();
    py::array_t<T> patterns({c.layers, c.heads, n, n});
    T* p = patterns.mutable_data();
    for (std::size_t l = 0; l < c.layers; ++l)
        for (std::size_t h = 0; h < c.heads; ++h, p += n * n) std::copy(kept.patterns[l][h].begin(), kept.patterns[l][h].end(), p);
    return py::make_tuple(out, patterns);
}

} // namespace

void bind_forward(py::module_& m)
{
    m.def(
        "forward",
        [](const model_pointer& model, const py::array_t<long long, py::array::c_style | py::array::forcecast>& tokens, const std::string& dtype,
           bool patterns, const py::object& on_pattern) {
            const auto ids = token_ids(tokens);
            if (dtype == "float32") return run<float>(*model, ids, patterns, on_pattern);
            if (dtype == "float64") return run<double>(*model, ids, patterns, on_pattern);
            throw std::invalid_argument("qkov: dtype '" + dtype + "': expected 'float32' or 'float64'");
        },
        py::arg("model"), py::arg("tokens"), py::arg("dtype") = "float32", py::arg("patterns") = false, py::arg("on_pattern") = py::none(),
        "The model's own forward pass on one token sequence: logits [n, d_vocab] (row = position, TransformerLens' layout) in dtype "
        "('float32' or 'float64'). With patterns=True, returns (logits, patterns) with patterns [n_layers, n_heads, n, n], row = query, "
        "column = key (TransformerLens' hook_pattern). on_pattern(layer, head, pattern), when given, sees each [n, n] pattern as the pass "
        "computes it, without all of them being kept. The weights are read once per model and dtype. Raises qkov.ModelFileError for a "
        "model the pass does not run (naming what it lacks or refuses), ValueError for a sequence it cannot take, IndexError for a token "
        "outside the vocabulary.");
}

} // namespace qkov::python
