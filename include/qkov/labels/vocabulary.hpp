// The one vocabulary of head labels (from weights, qkov scan) and the behaviours that judge them
// (from the forward pass, qkov detect): every name, every shared constant, and for each label one
// row with its rule, the reason for its threshold and the behaviours that confirm or contradict it.
// The scan's rules, the detection's comparison, the JSON documents, their schemas (checked against
// this table by unit.vocabulary), the Markdown tables and the figures all read these rows, so a
// label is added here (docs/EXTENDING.md) and nowhere else by name.
//
// Standard library only: a document's reader uses it without the numeric code.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace qkov::labels {

/// Offsets 0 .. largest_offset: the scan's predicted attention by offset (its window), the
/// detection's measured attention by offset and the circuit search's shifts. One constant, so the
/// scan's offset_k always has a behaviour offset_k to be judged by.
inline constexpr std::size_t largest_offset = 8;

/// A majority: the share of what a head could put somewhere that counts as putting it there. The
/// labels' attention-mass and per-token thresholds, the detection's fraction of each attainable
/// score, and the line the figures draw.
inline constexpr double majority = 0.5;

/// The attention-sink threshold of Gu et al. 2024 ("When attention sink emerges in language
/// models", arXiv 2410.10781): at least this much attention on BOS.
inline constexpr double sink_threshold = 0.3;

/// The kinds of label; offset and repeat_shift take a number (offset_k, repeat_shift_s).
enum class family { previous_token, offset, positional, sink, semantic, duplicate_token, induction, repeat_shift, copy, copy_suppression };

/// "offset_k": a majority of the attention k tokens back (k = 1 is previous_token).
inline std::string offset_name(std::size_t k) { return "offset_" + std::to_string(k); }

/// "repeat_shift_s": a majority of the attention s tokens after an earlier occurrence of the query's token.
inline std::string repeat_shift_name(std::size_t s) { return "repeat_shift_" + std::to_string(s); }

/// The label of a content circuit whose key reads the token `shift` back: duplicate_token (0),
/// induction (1), repeat_shift_<shift> (2 ..).
inline std::string circuit_label(std::size_t shift)
{
    if (shift == 0) return "duplicate_token";
    if (shift == 1) return "induction";
    return repeat_shift_name(shift);
}

/// One label: its name (with <k> or <s> where it takes a number), its rule from weights, why its
/// threshold is what it is, and which measured behaviours judge it (families; a numbered family
/// stands for every name of it the detection measures, or, where the label takes a number, the
/// behaviour of the same number).
struct label_row {
    family kind;
    const char* name;
    const char* rule;
    const char* reason;
    std::vector<family> confirmed_by;     ///< any of these shown confirms the label
    std::vector<family> contradicted_by;  ///< shown, with none confirming, contradicts it
    bool absence_contradicts;             ///< the label predicts a confirming behaviour: its measured absence contradicts
    const char* prediction;               ///< what the label predicts, in the comparison's words
};

/// Every label, in the order tables list them.
inline const std::vector<label_row>& label_rows()
{
    using enum family;
    static const std::vector<label_row> rows{
        {previous_token, "previous_token",
         "predicted previous-token score >= 1/2: the attention on key m - 1 averaged over queries m = 1 .. N, BOS being query 1's",
         "a majority of the head's attention on the previous token, predicted for the statistic qkov detect's previous_token measures "
         "(TransformerLens' score, which counts every query)",
         {previous_token}, {}, true, "predicts a majority of the attention one token back"},
        {offset, "offset_<k>", "predicted attention at offset k >= 1/2 (k = 0 or 2 .. 8)", "the same majority principle at another offset", {offset}, {}, true,
         "predicts a majority of the attention <k> tokens back"},
        {positional, "positional", "the two largest predicted offsets hold >= 1/2 of the attention",
         "position alone decides where most of the attention goes, even when it is split between two offsets", {positional, previous_token, offset}, {}, true,
         "predicts attention by position: two offsets hold a majority"},
        {sink, "sink", "predicted attention to BOS >= 0.3", "the attention-sink threshold of Gu et al. (arXiv 2410.10781)", {sink}, {}, true,
         "predicts at least 0.3 of the attention on BOS"},
        {semantic, "semantic", "positional swing over offsets 0 .. 8 <= ln 2, certified; two standard deviations of a key's content score >= ln 2; not positional",
         "position alone cannot double any key's weight against another while content can, so what the head attends to is decided by content",
         {duplicate_token, induction, repeat_shift}, {previous_token, positional, offset}, false,
         "predicts attention by content; on repeated tokens content shows as attention to, or next to, the earlier copy, and attention by position "
         "alone contradicts it"},
        {duplicate_token, "duplicate_token",
         "not positional; the head's direct QK circuit on the tokens' effective embeddings: the query's own token wins its row (top-1 share >= 1/2, "
         "averaged over offsets spread over the context)",
         "a majority of the tokens raise the key holding the same token above every other key: on a repeat the head attends to the earlier copy",
         {duplicate_token}, {}, true, "predicts a majority of the attention on the earlier copy of the query's token"},
        {induction, "induction",
         "not positional; the strongest composed circuit has shift 1 (the key reads the token one further back than the query does) and wins its row for "
         "a majority of the tokens",
         "on a repeat the key one after an earlier occurrence of the query's context holds the matching token for a majority of the tokens", {induction}, {}, true,
         "predicts a majority of the attention on the token after the earlier copy"},
        {repeat_shift, "repeat_shift_<s>", "not positional; the strongest composed circuit has shift s >= 2 and wins its row for a majority of the tokens",
         "as induction, s positions after the earlier occurrence (a head that copies the next token through V-composition can attend there)", {repeat_shift}, {},
         true, "predicts a majority of the attention <s> after the earlier copy"},
        {copy, "copy", "share of tokens that are the top-1 of their own OV row >= 1/2, and centred eigenvalue score >= 0.7",
         "the head raises most tokens it reads above every other token (per token), and its OV circuit is positive in aggregate (claim K2)", {copy}, {}, true,
         "predicts that the head's output raises the token it attends to"},
        {copy_suppression, "copy_suppression", "share of tokens in the bottom 10 of their own OV row >= 1/2, and centred eigenvalue score <= -0.7",
         "the head lowers most tokens it reads below almost every other token, and its OV circuit is negative in aggregate (the aggregate alone does not "
         "say it suppresses token by token, as it does not say a head copies)",
         {copy_suppression}, {}, true, "predicts that the head's output lowers the token it attends to"},
    };
    return rows;
}

/// The numbers a numbered family takes: offsets 0 and 2 .. largest_offset (offset 1 is
/// previous_token's), shifts 2 .. largest_offset (0 and 1 are duplicate_token and induction).
inline std::vector<std::size_t> numbers_of(family f)
{
    std::vector<std::size_t> out;
    if (f == family::offset)
        for (std::size_t k = 0; k <= largest_offset; ++k)
            if (k != 1) out.push_back(k);
    if (f == family::repeat_shift)
        for (std::size_t s = 2; s <= largest_offset; ++s) out.push_back(s);
    return out;
}

/// Whether the family's names carry a number.
inline bool numbered(family f) { return f == family::offset || f == family::repeat_shift; }

/// A family's name with its number (numbered families) or alone.
inline std::string name_of(family f, std::size_t number = 0)
{
    if (f == family::offset) return offset_name(number);
    if (f == family::repeat_shift) return repeat_shift_name(number);
    for (const auto& r : label_rows())
        if (r.kind == f) return r.name;
    return {};
}

/// Every name of a family: one, or one per number.
inline std::vector<std::string> names_of(family f)
{
    if (!numbered(f)) return {name_of(f)};
    std::vector<std::string> out;
    for (const std::size_t n : numbers_of(f)) out.push_back(name_of(f, n));
    return out;
}

/// A label name read back: its family and number; nullopt for a name outside the vocabulary
/// (offset_1, repeat_shift_0, repeat_shift_1 and numbers beyond largest_offset are outside it).
struct parsed_label {
    family kind;
    std::size_t number = 0;
};
inline std::optional<parsed_label> parse_label(std::string_view name)
{
    for (const auto& r : label_rows()) {
        if (!numbered(r.kind)) {
            if (name == r.name) return parsed_label{r.kind};
            continue;
        }
        for (const std::size_t n : numbers_of(r.kind))
            if (name == name_of(r.kind, n)) return parsed_label{r.kind, n};
    }
    return std::nullopt;
}

/// `text` with its number put in for "<k>" or "<s>" (a numbered label's name or prediction).
inline std::string with_number(std::string text, std::size_t number)
{
    for (const char* mark : {"<k>", "<s>"})
        for (auto at = text.find(mark); at != std::string::npos; at = text.find(mark)) text.replace(at, 3, std::to_string(number));
    return text;
}

/// The behaviour names that `judging` stands for when judging a label of family `label` numbered
/// `number`: the same-numbered name for the label's own numbered family, every name otherwise.
inline std::vector<std::string> judging_names(family judging, family label, std::size_t number)
{
    if (judging == label && numbered(label)) return {name_of(label, number)};
    return names_of(judging);
}

/// The behaviours that confirm a row's label, in words: "positional, previous_token or offset_<k>".
inline std::string confirmed_by_text(const label_row& row)
{
    std::string out;
    for (std::size_t i = 0; i < row.confirmed_by.size(); ++i) {
        if (i > 0) out += i + 1 == row.confirmed_by.size() ? " or " : ", ";
        for (const auto& r : label_rows())
            if (r.kind == row.confirmed_by[i]) out += r.name;
    }
    return out;
}

/// Every label name, in the rows' order, numbered families expanded.
inline std::vector<std::string> every_label_name()
{
    std::vector<std::string> out;
    for (const auto& r : label_rows())
        for (auto& n : names_of(r.kind)) out.push_back(std::move(n));
    return out;
}

} // namespace qkov::labels
