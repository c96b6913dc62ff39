#include "run_checks.hpp"

#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "qkov/io/document_schemas.hpp"

namespace qkov::app {
namespace {

/// The array `key` of a document that names `schema` (docs/schemas/), or an error naming the file
/// and what it holds instead.
nlohmann::json read_rows(const std::filesystem::path& file, const char* schema, const char* key)
{
    std::ifstream in(file);
    if (!in) throw std::runtime_error("cannot read " + file.string());
    nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
    if (j.is_discarded()) throw std::runtime_error(file.string() + ": not valid JSON");
    if (!j.is_object() || !j.contains("schema") || j["schema"] != schema)
        throw std::runtime_error(file.string() + ": expected a document of schema " + schema +
                                 (j.is_object() && j.contains("schema") ? ", it names " + j["schema"].dump() : std::string(" (written by an older qkov?)")));
    if (!j.contains(key) || !j[key].is_array()) throw std::runtime_error(file.string() + ": no \"" + key + "\" array");
    return j[key];
}

/// The field of row `k`, of the given type, or an error naming the file, the row and the field.
template <class T>
T field(const nlohmann::json& row, const char* name, const std::filesystem::path& file, std::size_t k)
{
    const auto where = file.string() + ": row " + std::to_string(k + 1);
    if (!row.is_object() || !row.contains(name)) throw std::runtime_error(where + " has no \"" + name + "\"");
    try {
        return row.at(name).get<T>();
    } catch (const nlohmann::json::exception&) {
        throw std::runtime_error(where + ": \"" + name + "\" has the wrong type (" + row.at(name).type_name() + ")");
    }
}

} // namespace

std::vector<run_check> read_validation_checks(const std::filesystem::path& json_file)
{
    const auto rows = read_rows(json_file, schemas::validate, "rows");
    std::vector<run_check> checks;
    for (std::size_t k = 0; k < rows.size(); ++k) {
        const auto& row = rows[k];
        run_check c;
        c.claim = field<std::string>(row, "claim", json_file, k);
        c.source = std::to_string(field<int>(row, "digits", json_file, k)) + " digits (" + field<std::string>(row, "size", json_file, k) + ")";
        c.passed = field<bool>(row, "within_bound", json_file, k);
        if (!c.passed) c.detail = "residual exceeds its bound";
        checks.push_back(std::move(c));
    }
    return checks;
}

std::vector<run_check> read_experiment_checks(const std::filesystem::path& json_file)
{
    const auto rows = read_rows(json_file, schemas::reproduce, "experiments");
    std::vector<run_check> checks;
    for (std::size_t k = 0; k < rows.size(); ++k) {
        const auto& row = rows[k];
        const auto section = field<std::string>(row, "section", json_file, k);
        const auto failed = field<std::vector<std::string>>(row, "failed_facts", json_file, k);
        const auto claims = field<std::vector<std::string>>(row, "claims", json_file, k);
        if (claims.empty()) throw std::runtime_error(json_file.string() + ": row " + std::to_string(k + 1) + " names no claim");
        std::string detail;
        for (const auto& f : failed) detail += (detail.empty() ? "" : "; ") + f;
        for (const auto& id : claims) checks.push_back({id, section, failed.empty(), detail});
    }
    return checks;
}

std::vector<run_check> read_scan_checks(const std::filesystem::path& json_file)
{
    std::ifstream in(json_file);
    if (!in) throw std::runtime_error("cannot read " + json_file.string());
    const nlohmann::json j = nlohmann::json::parse(in, nullptr, false);
    if (j.is_discarded() || !j.is_object()) throw std::runtime_error(json_file.string() + ": not a JSON object (qkov scan --json writes one)");
    if (!j.contains("facts") || !j["facts"].is_array()) throw std::runtime_error(json_file.string() + ": no \"facts\" array (written by an older qkov scan?)");
    const std::string model = j.contains("model") && j["model"].is_object() && j["model"].contains("path") && j["model"]["path"].is_string()
                                  ? std::filesystem::path(j["model"]["path"].get<std::string>()).filename().string()
                                  : json_file.stem().string();
    std::vector<run_check> checks;
    const auto& facts = j["facts"];
    for (std::size_t k = 0; k < facts.size(); ++k) {
        const auto& f = facts[k];
        run_check c;
        c.claim = field<std::string>(f, "claim", json_file, k);
        c.source = "scan of " + model + ": " + field<std::string>(f, "statement", json_file, k) + " (" + field<std::string>(f, "detail", json_file, k) + ")";
        c.passed = field<bool>(f, "passed", json_file, k);
        if (!c.passed) c.detail = field<std::string>(f, "detail", json_file, k);
        checks.push_back(std::move(c));
    }
    return checks;
}

} // namespace qkov::app
