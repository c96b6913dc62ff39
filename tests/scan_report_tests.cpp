// The scan's report: the composition edges it selects, the layer x head grids and axis ticks of
// its figures, the Markdown it writes and the PNG files, on small scans written out by hand so
// that every expected value is known without running the code under test.
#define BOOST_TEST_MODULE scan report
#include <boost/test/unit_test.hpp>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "qkov/scan/scan_figures.hpp"
#include "qkov/scan/scan_markdown.hpp"

namespace fs = std::filesystem;
using namespace qkov::scan;

namespace {

composition_score pair(std::size_t sl, std::size_t sh, std::size_t tl, std::size_t th, double q, double k, double v)
{
    composition_score c;
    c.source_layer = sl, c.source_head = sh, c.target_layer = tl, c.target_head = th;
    c.q = q, c.k = k, c.v = v;
    c.t3_spectrum = std::make_shared<const vector>(vector{0.5 + v, v});
    return c;
}

head_metrics head(std::size_t layer, std::size_t index, std::optional<double> cond_q, std::optional<double> copying)
{
    head_metrics h;
    h.layer = layer, h.head = index, h.kv_head = index;
    h.q.rank = cond_q ? 2 : 1, h.k.rank = 2;
    h.q.condition = cond_q, h.k.condition = 3.0;
    h.qk.singular_values = vector{4.0 + static_cast<double>(layer), 1.0};
    h.ov.singular_values = vector{2.0, 0.5};
    h.qk.residual = 1e-15, h.ov.residual = 3e-15;
    h.ov_identity_distance = 6.0, h.ov_identity_floor = 2.0;
    h.copying_score = copying;
    h.centred_copying_score = copying;  // what the table and the figure show (the label's score)
    return h;
}

/// Two layers of two heads: head 0.1 is rank-deficient, and every pair from layer 0 to layer 1.
scan_result two_layer_scan(bool with_copying)
{
    scan_result r;
    r.copying_available = with_copying;
    r.heads = {head(0, 0, 10.0, with_copying ? std::optional(0.9) : std::nullopt), head(0, 1, std::nullopt, std::nullopt),
               head(1, 0, 20.0, with_copying ? std::optional(-0.2) : std::nullopt), head(1, 1, 30.0, with_copying ? std::optional(0.1) : std::nullopt)};
    r.composition = {pair(0, 0, 1, 0, 0.1, 0.2, 0.3), pair(0, 0, 1, 1, 0.6, 0.1, 0.1), pair(0, 1, 1, 0, 0.05, 0.4, 0.05),
                     pair(0, 1, 1, 1, 0.2, 0.2, 0.2)};
    return r;
}

/// Head 1.0 made positional: a profile over offsets 0..4 peaking at 1, certified.
head_metrics positional_head()
{
    head_metrics h = head(1, 0, 2.0, std::nullopt);
    h.structure.one_direction_q = 0.99, h.structure.one_direction_k = 0.98;
    h.structure.reading_q = reading_constancy{2.0, 0.1}, h.structure.reading_k = reading_constancy{1.0, 0.1};
    offset_profile p;
    p.score = {1.0, 3.0, 2.0, 0.5, 0.25};
    p.best = 1, p.runner_up_fraction = (3.0 - 2.0) / (3.0 - 0.25);
    p.certificate = offset_certificate{certificate_status::holds, 1, 4, 0.99, 1.01, 0};
    h.structure.profile = p;
    h.labels.labels = {"positional", "previous_token"};
    return h;
}

/// Head 1.1 made semantic, and found by the bottom-heavy search: four RoPE pairs, the last two slow
/// and holding 0.8 of the energy.
head_metrics semantic_head()
{
    head_metrics h = head(1, 1, 2.0, std::nullopt);
    rope_structure r;
    const double shares[] = {0.1, 0.1, 0.3, 0.5};
    for (std::size_t l = 0; l < 4; ++l) r.pairs.push_back({l, 1.0 / static_cast<double>(1 + l), shares[l], 0.0, 0.0, l >= 2});
    r.slow_share = 0.8, r.slow_baseline = 0.5, r.context = 4, r.angles = "base 10000";
    h.structure.rope = r;
    h.qk.singular_values = vector{5.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0};  // d = 8: four pairs, even spread 2 / 8 each
    h.labels.labels = {"semantic"};
    h.labels.seed_searches = {"bottom_heavy"};
    h.labels.undecided = {{"copy", "no copying score"}};
    return h;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

/// True when the file starts with the eight bytes every PNG starts with.
bool is_png(const fs::path& path)
{
    std::ifstream in(path, std::ios::binary);
    char bytes[8] = {};
    in.read(bytes, 8);
    return in.gcount() == 8 && std::string(bytes, 8) == std::string("\x89PNG\r\n\x1a\n", 8);
}

} // namespace

BOOST_AUTO_TEST_CASE(an_edge_is_its_pair_s_largest_score_and_ties_go_to_q_then_k)
{
    const auto e = strongest_kind(pair(0, 0, 1, 0, 0.1, 0.4, 0.2));
    BOOST_TEST(e.score == 0.4);
    BOOST_TEST(e.kind == 'k');
    BOOST_TEST(strongest_kind(pair(0, 0, 1, 0, 0.3, 0.3, 0.3)).kind == 'q');
    BOOST_TEST(strongest_kind(pair(0, 0, 1, 0, 0.1, 0.3, 0.3)).kind == 'k');
    BOOST_TEST(strongest_kind(pair(0, 0, 1, 0, 0.1, 0.2, 0.5)).kind == 'v');
}

BOOST_AUTO_TEST_CASE(strongest_edges_are_ordered_by_score_then_by_the_scan_s_order)
{
    const std::vector<composition_score> all{pair(0, 0, 1, 0, 0.1, 0.2, 0.3), pair(0, 0, 1, 1, 0.6, 0.1, 0.1), pair(0, 1, 1, 0, 0.05, 0.4, 0.05),
                                             pair(0, 1, 1, 1, 0.3, 0.1, 0.1), pair(1, 0, 2, 0, 0.0, 0.0, 0.7)};
    const auto top = strongest_edges(all, 4);
    BOOST_TEST_REQUIRE(top.size() == 4u);
    BOOST_TEST(top[0].pair == &all[4]);  // 0.7 (v)
    BOOST_TEST(top[1].pair == &all[1]);  // 0.6 (q)
    BOOST_TEST(top[2].pair == &all[2]);  // 0.4 (k)
    BOOST_TEST(top[3].pair == &all[0]);  // 0.3, before the equal 0.3 of 0.1 -> 1.1
    BOOST_TEST(top[3].kind == 'v');
    BOOST_TEST(strongest_edges(all, 100).size() == all.size());
    BOOST_TEST(strongest_edges({}, 3).empty());
}

BOOST_AUTO_TEST_CASE(a_grid_has_one_row_per_layer_and_marks_heads_without_a_value)
{
    const std::vector<head_metrics> heads{head(2, 0, 5.0, std::nullopt), head(2, 1, std::nullopt, std::nullopt), head(3, 0, 7.0, std::nullopt),
                                          head(3, 1, 9.0, std::nullopt)};
    const auto g = layer_head_grid(heads, [](const head_metrics& h) { return h.q.condition; });
    BOOST_TEST(g.first_layer == 2u);
    BOOST_TEST(g.layers == 2u);
    BOOST_TEST(g.heads == 2u);
    BOOST_TEST(g.values == (std::vector<double>{5.0, 0.0, 7.0, 9.0}), boost::test_tools::per_element());
    BOOST_TEST(g.present == (std::vector<bool>{true, false, true, true}), boost::test_tools::per_element());
    BOOST_TEST(g.any());
    BOOST_TEST(!layer_head_grid(heads, [](const head_metrics& h) { return h.copying_score; }).any());
}

BOOST_AUTO_TEST_CASE(values_span_a_decade_when_all_are_positive_and_the_largest_is_ten_times_the_smallest)
{
    auto heads = std::vector<head_metrics>{head(0, 0, 2.0, std::nullopt), head(0, 1, 19.9, std::nullopt), head(0, 2, std::nullopt, std::nullopt)};
    const auto cond = [](const head_metrics& h) { return h.q.condition; };
    const auto spans = [&] {
        const auto g = layer_head_grid(heads, cond);
        return spans_a_decade(g.values, g.present);
    };
    BOOST_TEST(!spans());  // the missing head's 0 does not count
    heads[1].q.condition = 20.0;
    BOOST_TEST(spans());
    heads[0].q.condition = 0.0;
    BOOST_TEST(!spans());  // a zero has no place on a log scale
}

BOOST_AUTO_TEST_CASE(index_ticks_keep_at_most_the_asked_labels_on_a_1_2_5_stride)
{
    const auto name = [](std::size_t i) {
        std::string text = "h";  // appended, not "h" + ...: g++ 12 reports a false -Wrestrict on the latter
        text += std::to_string(i);
        return text;
    };
    const auto twelve = index_ticks(12, 12, name);
    BOOST_TEST(twelve.size() == 12u);
    BOOST_TEST(twelve.back().label == "h11");
    // 144 cells: strides 1, 2, 5, 10 give 144, 72, 29, 15 labels; 20 gives 8 (0, 20, ..., 140).
    const auto many = index_ticks(144, 12, name);
    BOOST_TEST_REQUIRE(many.size() == 8u);
    BOOST_TEST(many[1].value == 20.0);
    BOOST_TEST(many[7].label == "h140");
}

BOOST_AUTO_TEST_CASE(composition_axis_ticks_name_each_layer_s_first_head)
{
    const head_axis axis(two_layer_scan(false).heads);
    BOOST_TEST(axis.position.at({1, 1}) == 3u);
    const auto ticks = axis.layer_ticks();
    BOOST_TEST_REQUIRE(ticks.size() == 2u);
    BOOST_TEST(ticks[0].value == 0.0);
    BOOST_TEST(ticks[0].label == "0.0");
    BOOST_TEST(ticks[1].value == 2.0);
    BOOST_TEST(ticks[1].label == "1.0");
}

BOOST_AUTO_TEST_CASE(figures_are_png_files_and_those_without_data_are_left_out)
{
    const fs::path dir = fs::temp_directory_path() / "qkov-scan-report-tests" / "figures";
    fs::remove_all(dir);
    const auto written = write_scan_figures(two_layer_scan(false), dir);
    std::vector<std::string> files;
    for (const auto& f : written) {
        files.push_back(f.file);
        BOOST_TEST(is_png(dir / f.file), f.file);
    }
    // No copying score anywhere: no copying figure; every other metric and the four composition maps.
    // No prediction (no mean field), no labels: no per-head figure either.
    BOOST_TEST(files == (std::vector<std::string>{"cond_q.png", "cond_k.png", "qk_top_singular_value.png", "ov_top_singular_value.png",
                                                  "ov_identity_distance.png", "one_direction_q.png", "one_direction_k.png",
                                                  "composition_strongest.png", "composition_q.png", "composition_k.png", "composition_v.png",
                                                  "circuits.png"}),
               boost::test_tools::per_element());
    BOOST_TEST(!fs::exists(dir / "copying_score.png"));
    BOOST_TEST(!fs::exists(dir / "predicted_previous_token.png"));

    auto one_layer = two_layer_scan(true);
    one_layer.heads.resize(2);
    one_layer.composition.clear();
    const auto single = write_scan_figures(one_layer, dir / "single");
    BOOST_TEST(single.size() == 8u);  // the five metrics, the copying score and the two one-direction shares, no composition
    BOOST_TEST(single[5].file == "copying_score.png");
    BOOST_TEST(is_png(dir / "single" / "copying_score.png"));
}

BOOST_AUTO_TEST_CASE(markdown_lists_heads_per_layer_the_strongest_edges_and_links_the_figures)
{
    const auto r = two_layer_scan(true);
    markdown_options o;
    o.model_path = "models/tiny";
    o.model_summary = {{"architecture", "GPT2LMHeadModel"}, {"rope", "none"}};
    o.first_layer = 0, o.last_layer = 1;
    o.figures = {{"cond_q.png", "condition number of W_Q", figure_topic::heads},
                 {"composition_q.png", "Q-composition", figure_topic::composition}};
    o.figure_directory = "scan figures";
    o.edges = 2;
    const std::string md = scan_markdown(r, o);
    BOOST_TEST(has(md, "# qkov scan of models/tiny\n"));
    BOOST_TEST(has(md, "| architecture | GPT2LMHeadModel |\n"));
    BOOST_TEST(has(md, "| composition | TransformerLens: \\|\\|W_A W_B\\|\\|_F"));  // '|' escaped inside a cell
    BOOST_TEST(has(md, "### Layer 0\n"));
    BOOST_TEST(has(md, "### Layer 1\n"));
    // Head 0.0: rank 2/2, cond 10 and 3, sigma_1 4 and 2, OV 6 / 2 = 3, copying 0.9, residual 3e-15.
    BOOST_TEST(has(md, "| 0.0 | 0 | 2/2 | 10 | 3 | 4 | 2 | 3.000 | 0.900 | 3.0e-15 | 0.00/0.00 |  |  |\n"), md);
    BOOST_TEST(has(md, "| 0.1 | 1 | 1/2 | rank-deficient | 3 |"));
    // The two strongest pairs: 0.0 -> 1.1 by Q (0.6), then 0.1 -> 1.0 by K (0.4); T3 sigma_1 = 0.5 + v.
    const auto first = md.find("| 0.0 | 1.1 | q | 0.6000 | 0.1000 | 0.1000 | 0.6 |\n");
    const auto second = md.find("| 0.1 | 1.0 | k | 0.0500 | 0.4000 | 0.0500 | 0.55 |\n");
    BOOST_TEST((first != std::string::npos && second != std::string::npos && first < second), md);
    BOOST_TEST(!has(md, "| 0.0 | 1.0 |"));  // the third strongest is beyond edges = 2
    // Figures by relative path, the one with a space in angle brackets, each beside its table.
    const auto heads_figure = md.find("![condition number of W_Q](<scan figures/cond_q.png>)");
    const auto composition_figure = md.find("![Q-composition](<scan figures/composition_q.png>)");
    BOOST_TEST((heads_figure != std::string::npos && heads_figure < md.find("### Layer 0")));
    BOOST_TEST((composition_figure != std::string::npos && composition_figure > md.find("## Composition")));
}

BOOST_AUTO_TEST_CASE(markdown_says_why_a_copying_score_or_the_composition_is_missing)
{
    auto r = two_layer_scan(false);
    r.heads.resize(2);
    r.composition.clear();
    markdown_options o;
    o.model_path = "m", o.first_layer = 0, o.last_layer = 0;
    const std::string md = scan_markdown(r, o);
    BOOST_TEST(has(md, "| 3.000 | no W_E/W_U | 3.0e-15 |"), md);
    BOOST_TEST(has(md, "No pairs: the scan covers a single layer."));
    BOOST_TEST(!has(md, "### Layer 1"));
    BOOST_TEST(!has(md, "!["));
    BOOST_TEST(has(md, "No head is labelled."));
}

BOOST_AUTO_TEST_CASE(positional_and_semantic_heads_get_their_own_figures)
{
    const fs::path dir = fs::temp_directory_path() / "qkov-scan-report-tests" / "structure";
    fs::remove_all(dir);
    auto r = two_layer_scan(false);
    r.heads[2] = positional_head();
    r.heads[3] = semantic_head();
    const auto written = write_scan_figures(r, dir);
    BOOST_TEST_REQUIRE(written.size() == 14u);
    BOOST_TEST(written[12].file == "offset_profile_1.0.png");
    BOOST_TEST(written[13].file == "pair_energy_1.1.png");
    BOOST_TEST((written[12].topic == figure_topic::structure && written[12].head == std::pair<std::size_t, std::size_t>(1, 0)));
    for (const auto& f : written) BOOST_TEST(is_png(dir / f.file), f.file);
    // A head without the structure a figure draws is an error naming it, not an empty picture.
    try {
        write_offset_profile(r.heads[0], dir);
        BOOST_FAIL("a head without a profile was drawn");
    } catch (const std::invalid_argument& e) {
        BOOST_TEST(has(e.what(), "head 0.0 has no offset profile to draw"), e.what());
    }
    BOOST_CHECK_THROW(write_pair_energy(r.heads[0], dir), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(markdown_gives_each_labelled_head_its_evidence_and_figures)
{
    auto r = two_layer_scan(false);
    r.heads[2] = positional_head();
    r.heads[3] = semantic_head();
    r.thresholds.context = 4;
    markdown_options o;
    o.model_path = "m", o.first_layer = 0, o.last_layer = 1;
    o.figures = {{"offset_profile_1.0.png", "1.0 offset profile", figure_topic::structure, std::pair<std::size_t, std::size_t>(1, 0)}};
    o.figure_directory = "f";
    const std::string md = scan_markdown(r, o);
    BOOST_TEST(has(md, "| 1.0 | 0 | 2/2 | 2 | 3 | 5 | 2 | 3.000 | no W_E/W_U | 3.0e-15 | 0.99/0.98 | positional, previous_token |  |\n"), md);
    BOOST_TEST(has(md, "| 1.1 | 1 | 2/2 | 2 | 3 | 5 | 2 | 3.000 | no W_E/W_U | 3.0e-15 | 0.00/0.00 | semantic | copy |\n"), md);
    // The label rules table: every rule with its reason, the settings and the seeds' searches.
    BOOST_TEST(has(md, "| previous_token | predicted previous-token score >= 1/2: the attention on key m - 1 averaged over queries m = 1 .. N, BOS being query 1's |"));
    BOOST_TEST(has(md, "| sink | predicted attention to BOS >= 0.3 |"));
    BOOST_TEST(has(md, "rank_one_reading: one-direction shares >= 0.9 and reading std /"));
    BOOST_TEST(has(md, "over offsets 0 .. 4 (R12)"));
    BOOST_TEST(has(md, "## What the seeds asked, answered on these weights"));
    const auto positional = md.find("### 1.0: positional, previous_token\n");
    BOOST_TEST_REQUIRE(positional != std::string::npos);
    BOOST_TEST(has(md, "- reading of the top direction over the vocabulary, std / |mean|: W_Q 0.05, W_K 0.1\n"));
    BOOST_TEST(has(md, "- offset profile over 0..4: best offset 1, ahead of the runner-up by 0.364 of the range\n"));
    BOOST_TEST(has(md, "- certificate (interval arithmetic): holds; over every offset 0..4 except 1 the score is below its value at 1 by a margin in [0.99, 1.01]\n"));
    BOOST_TEST(md.find("![1.0 offset profile](f/offset_profile_1.0.png)") > positional);
    BOOST_TEST(has(md, "### 1.1: semantic\n"));
    BOOST_TEST(has(md, "- RoPE (base 10000): 2 of 4 pairs slow; slow pairs and unrotated dimensions hold 0.800 of the QK energy (0.500 under an even spread)\n"));
    BOOST_TEST(has(md, "- undecided copy: no copying score\n"));
    BOOST_TEST(!has(md, "### 0.0:"));  // unlabelled heads have no section
    BOOST_TEST(!has(md, "No head is labelled."));
}
