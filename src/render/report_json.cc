// JSON renderer for check findings (schema 1, docs/check.md).
#include <nlohmann/json.hpp>

#include "cuwheel/render/report.h"

namespace cuwheel::check {

std::string render_json(const std::vector<Finding>& findings, const ReportSummary& s) {
  using json = nlohmann::ordered_json;
  json doc;
  doc["schema"] = 1;
  doc["tool"] = "cuwheel " CUWHEEL_VERSION;
  doc["command"] = s.command;
  // Findings of one cause share a group number (1, 2, ...; absent for a
  // finding without twins); the array keeps one finding per location.
  std::vector<size_t> group_of(findings.size(), 0);
  size_t groups = 0;
  for (const auto& g : group_findings(findings))
    if (g.size() > 1) {
      ++groups;
      for (size_t i : g) group_of[i] = groups;
    }
  json arr = json::array();
  for (size_t i = 0; i < findings.size(); ++i) {
    const Finding& f = findings[i];
    const DiagnosticInfo* r = find_diagnostic(s.command, f.rule);
    arr.push_back(json{{"rule", f.rule},
                       {"code", r ? std::string(r->code) : std::string()},
                       {"severity", std::string(to_string(f.severity))},
                       {"path", f.path},
                       {"member", f.member},
                       {"location", f.location},
                       {"message", f.message},
                       {"hint", f.hint}});
    if (f.offset) arr.back()["offset"] = *f.offset;
    if (f.line) arr.back()["line"] = *f.line;
    if (f.index) arr.back()["index"] = *f.index;
    if (group_of[i]) arr.back()["group"] = group_of[i];
  }
  doc["findings"] = arr;
  json unreadable = json::array();
  for (const auto& [where, msg] : s.unreadable) unreadable.push_back(json{{"where", where}, {"message", msg}});
  json read_warnings = json::array();
  for (const auto& [where, msg] : s.read_warnings) read_warnings.push_back(json{{"where", where}, {"message", msg}});
  doc["summary"] = json{{"inputs", s.inputs},         {"errors", s.errors},
                        {"warnings", s.warnings},     {"notes", s.notes},
                        {"unreadable", unreadable},   {"read_warnings", read_warnings},
                        {"policy", s.policy_source}};
  if (s.baseline_given) doc["summary"]["baselined"] = s.baselined;
  if (s.statistics) {
    json stats = json::array();
    for (const auto& r : rule_statistics(findings, s.command))
      stats.push_back(json{{"rule", r.rule}, {"code", r.code}, {"severity", std::string(to_string(r.severity))},
                           {"count", r.count}});
    doc["summary"]["statistics"] = stats;
  }
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace cuwheel::check
