// SARIF 2.1.0 renderer for diagnostics (OASIS SARIF v2.1.0, section 3).
#include <nlohmann/json.hpp>

#include "cuwheel/render/baseline.h"
#include "cuwheel/render/report.h"

namespace cuwheel::check {

namespace {

using json = nlohmann::ordered_json;

// A path as the URI SARIF wants in artifactLocation.uri (section 3.4.3):
// RFC 3986 section 2.3's unreserved characters and "/" stay, every other
// byte is percent-encoded (section 2.1, upper-case hex), so ":" in a first
// segment cannot read as a scheme and "%", "#", "?" and spaces cannot
// change the reference. An absolute path becomes a "file://" URI with an
// empty authority (RFC 8089 section 2).
std::string path_uri(const std::string& path) {
  static const char* hex = "0123456789ABCDEF";
  std::string out = !path.empty() && path[0] == '/' ? "file://" : "";
  for (unsigned char c : path) {
    bool keep = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
                c == '_' || c == '~' || c == '/';
    if (keep) {
      out.push_back(static_cast<char>(c));
    } else {
      out.push_back('%');
      out.push_back(hex[c >> 4]);
      out.push_back(hex[c & 0xf]);
    }
  }
  return out;
}

}  // namespace

std::string render_sarif(const std::vector<Finding>& findings, const ReportSummary& s) {
  json rules_arr = json::array();
  for (const auto& r : diagnostics())
    if (r.command == s.command)
      rules_arr.push_back(json{{"id", std::string(r.code)},
                               {"name", std::string(r.name)},
                               {"shortDescription", json{{"text", std::string(r.summary)}}},
                               {"defaultConfiguration",
                                json{{"level", r.default_severity == Severity::error  ? "error"
                                               : r.default_severity == Severity::note ? "note"
                                                                                      : "warning"}}}});
  // GitHub code scanning rejects a whole upload whose run has more than
  // 25,000 results ("SARIF support for code scanning", upload limits): the
  // 25,000 are written, chosen by severity (every error, then warnings,
  // then notes), in report order, and a notification counts the rest.
  constexpr size_t kMaxResults = 25000;
  std::vector<const Finding*> kept;
  if (findings.size() <= kMaxResults) {
    for (const auto& f : findings) kept.push_back(&f);
  } else {
    size_t room = kMaxResults;
    std::vector<bool> keep(findings.size(), false);
    for (Severity sev : {Severity::error, Severity::warning, Severity::note})
      for (size_t i = 0; i < findings.size() && room > 0; ++i)
        if (findings[i].severity == sev) keep[i] = true, --room;
    for (size_t i = 0; i < findings.size(); ++i)
      if (keep[i]) kept.push_back(&findings[i]);
  }
  const size_t left_out = findings.size() - kept.size();
  json results = json::array();
  for (const Finding* fp : kept) {
    const Finding& f = *fp;
    const DiagnosticInfo* r = find_diagnostic(s.command, f.rule);
    json physical = json{{"artifactLocation", json{{"uri", path_uri(f.path)}}}};
    if (f.offset || f.line) {
      json region = json::object();
      if (f.line) region["startLine"] = *f.line;
      if (f.offset) region["byteOffset"] = *f.offset;
      physical["region"] = region;
    }
    // An input with no path (an architecture list given as arguments)
    // has only its logical location.
    json loc = f.path.empty() ? json::object() : json{{"physicalLocation", physical}};
    if (!f.member.empty() || !f.location.empty())
      loc["logicalLocations"] = json::array({json{{"name", f.member.empty() ? f.location : f.member},
                                                  {"fullyQualifiedName", f.member.empty() ? f.location
                                                                         : f.member + (f.location.empty() ? "" : " (" + f.location + ")")}}});
    std::string text = f.message + (f.hint.empty() ? "" : " Help: " + f.hint);
    results.push_back(json{{"ruleId", r ? std::string(r->code) : f.rule},
                           {"level", f.severity == Severity::error     ? "error"
                                     : f.severity == Severity::note ? "note"
                                                                    : "warning"},
                           {"message", json{{"text", text}}},
                           {"locations", json::array({loc})},
                           {"partialFingerprints", json{{"cuwheelFinding/v1", fingerprint(f)}}}});
  }
  // One invocation (section 3.20): each input that could not be read is a
  // tool execution notification (section 3.58), and the run did not
  // execute successfully; its findings are still reported above.
  // A reader's warning about a part it could read is a notification of
  // level "warning" that leaves executionSuccessful alone.
  json notifications = json::array();
  auto notify = [&](const std::vector<std::pair<std::string, std::string>>& list,
                    const std::vector<std::string>& inputs, const char* level, const char* id) {
    for (size_t i = 0; i < list.size(); ++i) {
      const auto& [where, msg] = list[i];
      const std::string input = i < inputs.size() ? inputs[i] : where;
      json loc = json{{"physicalLocation", json{{"artifactLocation", json{{"uri", path_uri(input)}}}}}};
      // "INPUT:MEMBER[:ARCHIVE-MEMBER]": the part after the input names the member.
      if (where.size() > input.size() + 1 && where.compare(0, input.size() + 1, input + ":") == 0)
        loc["logicalLocations"] = json::array({json{{"name", where.substr(input.size() + 1)}}});
      notifications.push_back(json{{"level", level},
                                   {"message", json{{"text", msg}}},
                                   {"descriptor", json{{"id", id}}},
                                   {"locations", json::array({loc})}});
    }
  };
  notify(s.unreadable, s.unreadable_inputs, "error", "unreadable");
  notify(s.read_warnings, s.read_warning_inputs, "warning", "read-warning");
  if (left_out > 0)
    notifications.push_back(json{{"level", "warning"},
                                 {"message", json{{"text", std::to_string(left_out) + " of " +
                                                               std::to_string(findings.size()) +
                                                               " results left out: code scanning takes at most " +
                                                               std::to_string(kMaxResults) +
                                                               " per run (--format json lists every finding)"}}},
                                 {"descriptor", json{{"id", "results-left-out"}}}});
  json invocation = json{{"executionSuccessful", s.unreadable.empty() && !s.incomplete}};
  if (!notifications.empty()) invocation["toolExecutionNotifications"] = notifications;
  json doc;
  doc["$schema"] = "https://json.schemastore.org/sarif-2.1.0.json";
  doc["version"] = "2.1.0";
  doc["runs"] = json::array({json{{"tool", json{{"driver", json{{"name", "cuwheel"},
                                                               {"version", CUWHEEL_VERSION},
                                                               {"rules", rules_arr}}}}},
                                  {"invocations", json::array({invocation})},
                                  {"results", results}}});
  return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace cuwheel::check
