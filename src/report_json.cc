// JSON renderer for check findings (schema 1, docs/check.md).
#include <nlohmann/json.hpp>

#include "cuwheel/report.h"

namespace cuwheel::check {

std::string render_json(const std::vector<Finding>& findings, const ReportSummary& s) {
  using json = nlohmann::ordered_json;
  json doc;
  doc["schema"] = 1;
  doc["tool"] = "cuwheel " CUWHEEL_VERSION;
  doc["command"] = "check";
  json arr = json::array();
  for (const auto& f : findings) {
    const RuleInfo* r = find_rule(f.rule);
    arr.push_back(json{{"rule", f.rule},
                       {"code", r ? std::string(r->code) : std::string()},
                       {"severity", std::string(to_string(f.severity))},
                       {"path", f.path},
                       {"member", f.member},
                       {"location", f.location},
                       {"message", f.message},
                       {"hint", f.hint}});
  }
  doc["findings"] = arr;
  json unreadable = json::array();
  for (const auto& [where, msg] : s.unreadable) unreadable.push_back(json{{"where", where}, {"message", msg}});
  doc["summary"] = json{{"inputs", s.inputs}, {"errors", s.errors}, {"warnings", s.warnings},
                        {"unreadable", unreadable}, {"policy", s.policy_source}};
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace cuwheel::check
