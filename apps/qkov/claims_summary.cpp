#include "claims_summary.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <optional>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "qkov/report/joined_text.hpp"
#include "qkov/report/table.hpp"

namespace fs = std::filesystem;

namespace qkov::app {
namespace {

using report::joined;

std::string read_text(const fs::path& p)
{
    std::ifstream in(p);
    if (!in) throw std::runtime_error("cannot read " + p.string());
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

std::string trim(std::string s)
{
    const auto first = s.find_first_not_of(" \t");
    const auto last = s.find_last_not_of(" \t\r");
    return first == std::string::npos ? std::string{} : s.substr(first, last - first + 1);
}

// The text is scanned by hand, not with std::regex: libstdc++'s regex recurses once per character
// a repetition matches, so one long line (a 50 KB comment) overflows the stack.

bool is_digit(char c) { return c >= '0' && c <= '9'; }

/// A claim id ([RTBK] and digits) at the start of `s`: its length, or 0.
std::size_t id_length(std::string_view s)
{
    if (s.empty() || std::string_view("RTBK").find(s[0]) == std::string_view::npos) return 0;
    std::size_t n = 1;
    while (n < s.size() && is_digit(s[n])) ++n;
    return n > 1 ? n : 0;
}

std::string id_of(const fs::path& file)
{
    const std::string name = file.filename().string();
    const std::size_t n = id_length(name);
    return n > 0 && n < name.size() && name[n] == '_' ? name.substr(0, n) : std::string{};
}

/// The rest of the line after the first occurrence of `marker`, or nothing.
std::optional<std::string_view> line_after(std::string_view text, std::string_view marker, std::size_t from = 0)
{
    const auto at = text.find(marker, from);
    if (at == std::string_view::npos) return std::nullopt;
    const auto start = at + marker.size();
    const auto end = text.find('\n', start);
    return text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
}

/// "// Claim R8: title" gives "title"; "// Claim R8 (certified part): title" gives "(certified part) title".
std::string claim_title(std::string_view text, const std::string& id)
{
    const std::string marker = "// Claim " + id;
    for (auto at = text.find(marker); at != std::string_view::npos; at = text.find(marker, at + 1)) {
        std::string_view rest = *line_after(text, marker, at);
        if (rest.starts_with(": ")) return std::string(rest.substr(2));
        if (rest.starts_with(" (")) {
            const auto close = rest.find(')');
            if (close != std::string_view::npos && rest.substr(close + 1).starts_with(": "))
                return std::string(rest.substr(1, close)) + " " + std::string(rest.substr(close + 3));
        }
    }
    return {};
}

/// Occurrences of the word static_assert followed (after blanks) by '('.
int count_static_asserts(std::string_view text)
{
    static constexpr std::string_view word = "static_assert";
    int count = 0;
    for (auto at = text.find(word); at != std::string_view::npos; at = text.find(word, at + 1)) {
        const bool starts_word = at == 0 || !(std::isalnum(static_cast<unsigned char>(text[at - 1])) || text[at - 1] == '_');
        const auto next = text.find_first_not_of(" \t\r\n", at + word.size());
        if (starts_word && next != std::string_view::npos && text[next] == '(') ++count;
    }
    return count;
}

/// A catalogue row "| ID | claim ... | checks |": the id, the middle cells and the last cell.
std::optional<catalogued_claim> parse_row(const std::string& raw)
{
    const std::string line = trim(raw);
    if (line.size() < 2 || line.front() != '|' || line.back() != '|') return std::nullopt;
    const auto first_bar = line.find('|', 1);
    if (first_bar == std::string::npos) return std::nullopt;
    const std::string id = trim(line.substr(1, first_bar - 1));
    if (id_length(id) != id.size()) return std::nullopt;
    const auto last_open = line.rfind('|', line.size() - 2);
    if (last_open == std::string::npos || last_open <= first_bar) return std::nullopt;
    return catalogued_claim{id, trim(line.substr(first_bar + 1, last_open - first_bar - 1)),
                            trim(line.substr(last_open + 1, line.size() - last_open - 2))};
}

// The newest modification time among the headers a proof may include.
fs::file_time_type newest_header(const fs::path& include_dir)
{
    auto newest = fs::file_time_type::min();
    if (!fs::is_directory(include_dir)) return newest;
    for (const auto& entry : fs::recursive_directory_iterator(include_dir))
        if (entry.is_regular_file()) newest = std::max(newest, fs::last_write_time(entry.path()));
    return newest;
}

// proofs/proofs.stamp is written by the build only after every proof object compiled; a proof
// counts as proved if the stamp is newer than the proof and than every header.
bool proved_by_build(const fs::path& source, const fs::path& build_dir, fs::file_time_type headers)
{
    if (build_dir.empty()) return false;
    const fs::path stamp = build_dir / "proofs" / "proofs.stamp";
    if (!fs::exists(stamp)) return false;
    const auto built = fs::last_write_time(stamp);
    return built >= fs::last_write_time(source) && built >= headers;
}

/// The kinds a "// Kind:" line names: each of P, X, C standing as a word before " (", in order
/// ("P (symbolic ...) and X (exact ..." gives "PX").
std::string kind_letters(std::string_view kind)
{
    std::string letters;
    for (std::size_t k = 0; k < kind.size(); ++k) {
        const char c = kind[k];
        if (std::string_view("PXC").find(c) == std::string_view::npos) continue;
        const bool word_start = k == 0 || kind[k - 1] == ' ';
        const bool before_paren = kind.substr(k + 1).starts_with(" (");
        if (word_start && before_paren && letters.find(c) == std::string::npos) letters += c;
    }
    return letters;
}

} // namespace

std::vector<catalogued_claim> read_catalogue(const fs::path& claims_md)
{
    std::istringstream in(read_text(claims_md));
    std::vector<catalogued_claim> claims;
    for (std::string line; std::getline(in, line);)
        if (auto claim = parse_row(line)) claims.push_back(std::move(*claim));
    if (claims.empty()) throw std::runtime_error(claims_md.string() + " has no claim rows (| ID | claim | checks |)");
    return claims;
}

std::vector<proof_file> read_proofs(const fs::path& proofs_dir, const fs::path& include_dir, const fs::path& build_dir)
{
    if (!fs::is_directory(proofs_dir)) throw std::runtime_error(proofs_dir.string() + " is not a directory");
    const auto headers = newest_header(include_dir);
    std::vector<proof_file> proofs;
    for (const auto& entry : fs::directory_iterator(proofs_dir)) {
        if (entry.path().extension() != ".cpp") continue;
        proof_file p;
        p.path = entry.path();
        p.id = id_of(p.path);
        if (p.id.empty()) continue;
        const std::string text = read_text(p.path);
        // "// Claim R8: ..." or, for one part of a claim, "// Claim R8 (certified part): ...".
        p.title = claim_title(text, p.id);
        if (const auto kind = line_after(text, "// Kind: ")) p.kind = std::string(*kind);
        p.kind_letters = kind_letters(p.kind);
        p.static_asserts = count_static_asserts(text);
        const fs::path false_dir = proofs_dir / "false";
        if (fs::is_directory(false_dir))
            for (const auto& twin : fs::directory_iterator(false_dir))
                if (twin.path().extension() == ".cpp" && id_of(twin.path()) == p.id) p.false_twins.push_back(twin.path().filename().string());
        std::sort(p.false_twins.begin(), p.false_twins.end());
        p.compiled = proved_by_build(p.path, build_dir, headers);
        proofs.push_back(std::move(p));
    }
    std::sort(proofs.begin(), proofs.end(), [](const auto& a, const auto& b) { return a.path < b.path; });
    return proofs;
}

void write_summary(std::ostream& out, const std::vector<catalogued_claim>& claims, const std::vector<proof_file>& proofs)
{
    std::map<std::string, std::vector<const proof_file*>> by_id;
    for (const auto& p : proofs) by_id[p.id].push_back(&p);

    int proved = 0, written = 0;
    report::table t({"id", "status", "proof file", "static_asserts", "false twins", "what is proved"});
    for (const auto& c : claims) {
        const auto it = by_id.find(c.id);
        if (it == by_id.end()) {
            // No proof file says nothing of the claim's other kinds: write_checks lists those.
            t.add_row({c.id, "no proof file", "", "", "", "(catalogue asks for " + c.checks + ")"});
            continue;
        }
        ++written;
        bool all_compiled = true;
        for (const proof_file* p : it->second) {
            all_compiled = all_compiled && p->compiled;
            const std::string twins = joined(p->false_twins, ", ");
            t.add_row({c.id, p->compiled ? "proved" : "not built", "proofs/" + p->path.filename().string(),
                       std::to_string(p->static_asserts), twins.empty() ? "NONE" : twins,
                       p->title + (p->kind.empty() ? "" : " [" + p->kind + "]")});
        }
        if (all_compiled) ++proved;
    }
    out << t.markdown();
    out << "\n" << proved << " of " << claims.size() << " claim ids proved by a compiled proof file; " << written
        << " have proof files.\n";
    for (const auto& [id, files] : by_id)
        if (std::none_of(claims.begin(), claims.end(), [&](const auto& c) { return c.id == id; }))
            out << "warning: proofs for " << id << " name no claim of the catalogue\n";
}

namespace {

constexpr std::string_view all_kinds = "PXCHES";

/// What each kind's checks are and where the summary reads them.
constexpr std::string_view kind_source(char kind)
{
    switch (kind) {
    case 'P': case 'X': case 'C': return "proof files in proofs/ (status from the build's proofs.stamp)";
    case 'H': return "validation rows (qkov validate --json; qkov claims --validation)";
    case 'E': return "experiments and their stated facts (qkov reproduce's experiments.json; qkov claims --experiments)";
    default: return "weight scans and their stated facts (qkov scan --json; qkov claims --scans)";
    }
}

struct kind_total {
    int checks = 0, passed = 0, failed = 0, not_run = 0;
    std::vector<std::string> claims_passed;
};

} // namespace

void write_checks(std::ostream& out, const std::vector<catalogued_claim>& claims, const std::vector<proof_file>& proofs,
                  const run_evidence& run)
{
    // Every check, by kind and claim id: its text in the table and whether it passed, failed or did not run.
    enum class outcome { passed, failed, not_run };
    struct entry {
        std::string text;
        outcome result;
    };
    std::map<char, std::map<std::string, std::vector<entry>>> checks;
    for (const auto& p : proofs)
        for (char k : p.kind_letters)
            checks[k][p.id].push_back({p.path.filename().string() + ": " + (p.compiled ? "proved" : "not built"),
                                       p.compiled ? outcome::passed : outcome::not_run});
    const std::pair<char, const std::optional<std::vector<run_check>>*> run_kinds[] = {
        {'H', &run.validation}, {'E', &run.experiments}, {'S', &run.scans}};
    auto seen = [&](char kind) {
        for (const auto& [k, data] : run_kinds)
            if (k == kind) return data->has_value();
        return true;  // P, X, C: the proof files are always read
    };
    for (const auto& [kind, data] : run_kinds)
        if (*data)
            for (const auto& c : **data)
                checks[kind][c.claim].push_back({c.source + ": " + (c.passed ? "passed" : "FAILED (" + c.detail + ")"),
                                                 c.passed ? outcome::passed : outcome::failed});

    std::map<char, kind_total> totals;
    report::table t({"id", "asks for", "P", "X", "C", "H", "E", "S"});
    for (const auto& c : claims) {
        std::vector<std::string> row{c.id, c.checks};
        for (char kind : all_kinds) {
            auto& total = totals[kind];
            if (!seen(kind)) {
                row.push_back("not seen");
                continue;
            }
            const auto found = checks[kind].find(c.id);
            if (found == checks[kind].end()) {
                // A kind the catalogue asks for and the run did not check is a gap worth seeing.
                row.push_back(c.checks.find(kind) != std::string::npos ? "none" : "");
                continue;
            }
            std::vector<std::string> cells;
            bool any_passed = false;
            for (const auto& e : found->second) {
                cells.push_back(e.text);
                ++total.checks;
                if (e.result == outcome::passed) ++total.passed, any_passed = true;
                if (e.result == outcome::failed) ++total.failed;
                if (e.result == outcome::not_run) ++total.not_run;
            }
            if (any_passed) total.claims_passed.push_back(c.id);
            row.push_back(joined(cells, "; "));
        }
        t.add_row(std::move(row));
    }
    out << t.markdown();

    report::table summary({"kind", "checks", "passed", "failed", "not run", "claims with a passing check", "read from"},
                          std::vector<report::column_alignment>(7, report::column_alignment::left));
    for (char kind : all_kinds) {
        const auto& total = totals[kind];
        const std::string k(1, kind);
        if (!seen(kind)) {
            summary.add_row({k, "not seen", "", "", "", "", std::string(kind_source(kind))});
            continue;
        }
        summary.add_row({k, std::to_string(total.checks), std::to_string(total.passed), std::to_string(total.failed),
                         std::to_string(total.not_run), std::to_string(total.claims_passed.size()) + " of " + std::to_string(claims.size()),
                         std::string(kind_source(kind))});
    }
    out << "\nTotals per kind of check (docs/CLAIMS.md defines the kinds):\n\n" << summary.markdown();
    std::string unseen;
    for (char kind : all_kinds)
        if (!seen(kind)) unseen += (unseen.empty() ? "" : ", ") + std::string(1, kind);
    if (!unseen.empty())
        out << "\nNot seen by this summary: " << unseen
            << " (no run data was given for these kinds, so their checks are neither counted nor reported missing).\n";
}

} // namespace qkov::app
