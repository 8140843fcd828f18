// Text renderer for check findings. See include/cuwheel/render/report.h.
//
// Paths, member names and messages carry names read from input: each goes
// through printable() (include/cuwheel/base/bytes.h) so that no control byte in
// one reaches the terminal or the CI log as itself.
#include "cuwheel/base/bytes.h"
#include "cuwheel/render/report.h"

namespace cuwheel::check {

std::string render_text(const std::vector<Finding>& findings, const ReportSummary& s) {
  std::string out;
  for (const auto& group : group_findings(findings)) {
    const Finding& f = findings[group.front()];
    out += printable(f.path);
    if (group.size() == 1 && !f.member.empty()) out += ":" + printable(f.member);
    out += ": " + std::string(to_string(f.severity)) + "[" + f.rule + "]: " + printable(f.message) + "\n";
    if (!f.location.empty()) out += "  where: " + printable(f.location) + "\n";
    if (group.size() > 1) {
      out += "  in:    " + std::to_string(group.size()) + " members: ";
      for (size_t k = 0; k < group.size(); ++k) {
        const std::string& m = findings[group[k]].member;
        out += (k ? ", " : "") + (m.empty() ? std::string("(the input)") : printable(m));
      }
      out += "\n";
    }
    if (!f.hint.empty()) out += "  help:  " + printable(f.hint) + "\n";
  }
  for (const auto& [where, msg] : s.unreadable) {
    // Reader messages usually start with the path already.
    std::string m = msg.rfind(where + ": ", 0) == 0 ? msg.substr(where.size() + 2) : msg;
    out += printable(where) + ": error[unreadable]: " + printable(m) + "\n";
  }
  for (const auto& [where, msg] : s.read_warnings)
    out += printable(where) + ": read warning: " + printable(msg) + "\n";
  std::string counted = std::to_string(s.inputs) + (s.inputs == 1 ? " input" : " inputs") + " checked";
  if (s.installed)
    counted = std::to_string(s.given) + (s.given == 1 ? " input" : " inputs") + " checked (" +
              std::to_string(s.installed) + (s.installed == 1 ? " installed distribution" : " installed distributions") +
              (s.given == 1 ? " in it)" : " in them)");
  std::string summary = counted + ": " +
                        std::to_string(s.errors) + (s.errors == 1 ? " error" : " errors") + ", " +
                        std::to_string(s.warnings) + (s.warnings == 1 ? " warning" : " warnings");
  if (s.notes) summary += ", " + std::to_string(s.notes) + (s.notes == 1 ? " note" : " notes");
  if (!s.unreadable.empty()) summary += ", " + std::to_string(s.unreadable.size()) + " unreadable";
  if (!s.read_warnings.empty())
    summary += ", " + std::to_string(s.read_warnings.size()) +
               (s.read_warnings.size() == 1 ? " read warning" : " read warnings");
  summary += s.policy_source.empty() ? " (built-in policy)" : " (policy: " + printable(s.policy_source) + ")";
  out += summary + "\n";
  return out;
}

}  // namespace cuwheel::check
