// SARIF 2.1.0 renderer for check findings (OASIS SARIF v2.1.0, section 3).
#include <nlohmann/json.hpp>

#include "cuwheel/report.h"

namespace cuwheel::check {

std::string render_sarif(const std::vector<Finding>& findings, const ReportSummary& s) {
  using json = nlohmann::ordered_json;
  json rules_arr = json::array();
  for (const auto& r : rules())
    rules_arr.push_back(json{{"id", std::string(r.code)},
                             {"name", std::string(r.name)},
                             {"shortDescription", json{{"text", std::string(r.summary)}}},
                             {"defaultConfiguration",
                              json{{"level", r.default_severity == Severity::error ? "error" : "warning"}}}});
  json results = json::array();
  for (const auto& f : findings) {
    const RuleInfo* r = find_rule(f.rule);
    std::string uri = f.path;
    json loc = json{{"physicalLocation", json{{"artifactLocation", json{{"uri", uri}}}}}};
    if (!f.member.empty() || !f.location.empty())
      loc["logicalLocations"] = json::array({json{{"name", f.member.empty() ? f.location : f.member},
                                                  {"fullyQualifiedName", f.member + (f.location.empty() ? "" : " (" + f.location + ")")}}});
    std::string text = f.message + (f.hint.empty() ? "" : " Help: " + f.hint);
    results.push_back(json{{"ruleId", r ? std::string(r->code) : f.rule},
                           {"level", f.severity == Severity::error ? "error" : "warning"},
                           {"message", json{{"text", text}}},
                           {"locations", json::array({loc})}});
  }
  json doc;
  doc["$schema"] = "https://json.schemastore.org/sarif-2.1.0.json";
  doc["version"] = "2.1.0";
  doc["runs"] = json::array({json{{"tool", json{{"driver", json{{"name", "cuwheel"},
                                                               {"version", CUWHEEL_VERSION},
                                                               {"rules", rules_arr}}}}},
                                  {"results", results}}});
  (void)s;
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace cuwheel::check
