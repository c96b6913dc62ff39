#include "claims_summary.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <ostream>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace fs = std::filesystem;

namespace qkov::app {
namespace {

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

std::string id_of(const fs::path& file)
{
    static const std::regex id_prefix(R"(^([RTBK][0-9]+)_)");
    std::smatch m;
    const std::string name = file.filename().string();
    return std::regex_search(name, m, id_prefix) ? m[1].str() : std::string{};
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

} // namespace

std::vector<catalogued_claim> read_catalogue(const fs::path& claims_md)
{
    std::istringstream in(read_text(claims_md));
    static const std::regex row(R"(^\|\s*([RTBK][0-9]+)\s*\|(.*)\|([^|]*)\|\s*$)");
    std::vector<catalogued_claim> claims;
    for (std::string line; std::getline(in, line);) {
        std::smatch m;
        if (std::regex_match(line, m, row)) claims.push_back({m[1].str(), trim(m[2].str()), trim(m[3].str())});
    }
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
        std::smatch m;
        // "// Claim R8: ..." or, for one part of a claim, "// Claim R8 (certified part): ...".
        if (std::regex_search(text, m, std::regex("// Claim " + p.id + R"(( \([^)]*\))?: ([^\n]*))")))
            p.title = m[1].length() > 0 ? m[1].str().substr(1) + " " + m[2].str() : m[2].str();
        if (std::regex_search(text, m, std::regex(R"(// Kind: ([^\n]*))"))) p.kind = m[1].str();
        const std::regex assertion(R"(\bstatic_assert\s*\()");
        p.static_asserts = static_cast<int>(std::distance(std::sregex_iterator(text.begin(), text.end(), assertion), std::sregex_iterator()));
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
    out << "| id | status | proof file | static_asserts | false twins | what is proved |\n";
    out << "| --- | --- | --- | --- | --- | --- |\n";
    for (const auto& c : claims) {
        const auto it = by_id.find(c.id);
        if (it == by_id.end()) {
            out << "| " << c.id << " | not yet | | | | (catalogue asks for " << c.checks << ") |\n";
            continue;
        }
        ++written;
        bool all_compiled = true;
        for (const proof_file* p : it->second) {
            all_compiled = all_compiled && p->compiled;
            std::string twins;
            for (const auto& t : p->false_twins) twins += (twins.empty() ? "" : ", ") + t;
            out << "| " << c.id << " | " << (p->compiled ? "proved" : "not built") << " | proofs/"
                << p->path.filename().string() << " | " << p->static_asserts << " | "
                << (twins.empty() ? "NONE" : twins) << " | " << p->title << (p->kind.empty() ? "" : " [" + p->kind + "]")
                << " |\n";
        }
        if (all_compiled) ++proved;
    }
    out << "\n" << proved << " of " << claims.size() << " claim ids proved by a compiled proof file; " << written
        << " have proof files.\n";
    for (const auto& [id, files] : by_id)
        if (std::none_of(claims.begin(), claims.end(), [&](const auto& c) { return c.id == id; }))
            out << "warning: proofs for " << id << " name no claim of the catalogue\n";
}

} // namespace qkov::app
