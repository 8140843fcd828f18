// Text renderer for check findings. See include/cuwheel/render/report.h.
//
// Paths, member names and messages carry names read from input: each goes
// through printable() (include/cuwheel/base/bytes.h) so that no control byte in
// one reaches the terminal or the CI log as itself.
#include <algorithm>
#include <map>

#include "cuwheel/base/bytes.h"
#include "cuwheel/render/report.h"

namespace cuwheel::check {

namespace {

// SGR colours (ECMA-48): bold red errors, yellow warnings, cyan notes.
std::string severity_word(Severity sev, const TextOptions& o) {
  const std::string word(to_string(sev));
  if (!o.color) return word;
  const char* sgr = sev == Severity::error ? "\x1b[1;31m" : sev == Severity::warning ? "\x1b[33m" : "\x1b[36m";
  return sgr + word + "\x1b[0m";
}

// `head` then the items separated by ", ", wrapped at `width` columns with
// continuation lines indented under the first item (no wrap when 0). An
// item longer than a line stays whole on its own line.
std::string wrapped_list(const std::string& head, const std::vector<std::string>& items, size_t width) {
  std::string out = head;
  size_t col = head.size();
  // Continuation lines start under the first item, unless that leaves
  // less than half the width for the items.
  const size_t under = head.size() + 1;
  const std::string indent(width && under > width / 2 ? 4 : under, ' ');
  for (size_t k = 0; k < items.size(); ++k) {
    std::string piece = items[k] + (k + 1 < items.size() ? "," : "");
    if (width && k && col + 1 + piece.size() > width) {
      out += "\n" + indent;
      col = indent.size();
    } else {
      out += ' ';
      ++col;
    }
    out += piece;
    col += piece.size();
  }
  return out + "\n";
}

// One `error[unreadable]` line per part that could not be read.
std::string unreadable_lines(const ReportSummary& s, const TextOptions& o) {
  std::string out;
  for (const auto& [where, msg] : s.unreadable) {
    // Reader messages usually start with the path already.
    std::string m = msg.rfind(where + ": ", 0) == 0 ? msg.substr(where.size() + 2) : msg;
    out += printable(where) + ": " + severity_word(Severity::error, o) + "[unreadable]: " + printable(m) + "\n";
  }
  return out;
}

std::string summary_line(const ReportSummary& s) {
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
  if (s.baseline_given)
    summary += ", " + std::to_string(s.baselined) + (s.baselined == 1 ? " finding" : " findings") + " in the baseline";
  summary += s.policy_source.empty() ? " (built-in policy)" : " (policy: " + printable(s.policy_source) + ")";
  return summary + "\n";
}

}  // namespace

std::vector<RuleCount> rule_statistics(const std::vector<Finding>& findings, const std::string& command) {
  std::map<std::pair<std::string, Severity>, size_t> counts;
  for (const auto& f : findings) ++counts[{f.rule, f.severity}];
  std::vector<RuleCount> out;
  for (const auto& [key, n] : counts) {
    const DiagnosticInfo* r = find_diagnostic(command, key.first);
    out.push_back(RuleCount{key.first, r ? std::string(r->code) : std::string(), key.second, n});
  }
  std::stable_sort(out.begin(), out.end(), [](const RuleCount& a, const RuleCount& b) {
    if (a.count != b.count) return a.count > b.count;
    if (a.code != b.code) return a.code < b.code;
    return a.severity < b.severity;
  });
  return out;
}

std::string render_text(const std::vector<Finding>& findings, const ReportSummary& s, const TextOptions& o) {
  std::string out;
  size_t shown = 0, left = 0;
  for (const auto& group : group_findings(findings)) {
    const Finding& f = findings[group.front()];
    if (o.quiet && f.severity != Severity::error) continue;
    if (o.max_findings && shown >= *o.max_findings) {
      left += group.size();
      continue;
    }
    ++shown;
    out += printable(f.path);
    if (group.size() == 1 && !f.member.empty()) out += ":" + printable(f.member);
    out += ": " + severity_word(f.severity, o) + "[" + f.rule + "]: " + printable(f.message) + "\n";
    if (!f.location.empty()) out += "  where: " + printable(f.location) + "\n";
    if (group.size() > 1) {
      std::vector<std::string> members;
      for (size_t k : group) {
        const std::string& m = findings[k].member;
        members.push_back(m.empty() ? std::string("(the input)") : printable(m));
      }
      out += wrapped_list("  in:    " + std::to_string(group.size()) + " members:", members, o.width);
    }
    if (!f.hint.empty()) out += "  help:  " + printable(f.hint) + "\n";
  }
  if (left)
    out += "... " + std::to_string(left) + (left == 1 ? " more finding" : " more findings") + " not shown (--max-findings " +
           std::to_string(*o.max_findings) + "; --statistics counts them by rule)\n";
  out += unreadable_lines(s, o);
  if (o.quiet) return out;
  for (const auto& [where, msg] : s.read_warnings)
    out += printable(where) + ": read warning: " + printable(msg) + "\n";
  return out + summary_line(s);
}

std::string render_statistics(const std::vector<Finding>& findings, const ReportSummary& s, const TextOptions& o) {
  std::string out;
  const auto stats = rule_statistics(findings, s.command);
  size_t count_w = 1, rule_w = 1;
  for (const auto& r : stats) {
    count_w = std::max(count_w, std::to_string(r.count).size());
    rule_w = std::max(rule_w, r.rule.size());
  }
  for (const auto& r : stats) {
    if (o.quiet && r.severity != Severity::error) continue;
    const std::string n = std::to_string(r.count);
    out += std::string(count_w - n.size(), ' ') + n + "  " + (r.code.empty() ? std::string(5, ' ') : r.code) + "  " +
           r.rule + std::string(rule_w - r.rule.size(), ' ') + "  " + severity_word(r.severity, o) + "\n";
  }
  out += unreadable_lines(s, o);
  if (o.quiet) return out;
  return out + summary_line(s);
}

}  // namespace cuwheel::check
