// GitHub Actions workflow-command renderer for check findings.
//
// Every value is first made printable (include/cuwheel/base/bytes.h: control
// bytes, ESC among them, become \xNN), then escaped as the workflow-command
// syntax requires ("Workflow commands for GitHub Actions": %25, %0D, %0A in
// the message; also %3A and %2C in a property), so a member name cannot end
// the command line and start another.
#include "cuwheel/base/bytes.h"
#include "cuwheel/render/report.h"

namespace cuwheel::check {

namespace {
// Workflow commands need %, CR and LF escaped in data, and also , and : in
// property values.
std::string escape_data(const std::string& raw) {
  const std::string s = printable(raw);
  std::string o;
  for (char c : s) {
    if (c == '%') o += "%25";
    else if (c == '\r') o += "%0D";
    else if (c == '\n') o += "%0A";
    else o.push_back(c);
  }
  return o;
}
std::string escape_prop(const std::string& s) {
  std::string o;
  for (char c : escape_data(s)) {
    if (c == ':') o += "%3A";
    else if (c == ',') o += "%2C";
    else o.push_back(c);
  }
  return o;
}
}  // namespace

// A message that starts with its location ("sm_70: ...") does not repeat
// it in brackets.
std::string render_github(const std::vector<Finding>& findings, const ReportSummary& s) {
  std::string out;
  for (const auto& f : findings) {
    std::string title = f.rule + (f.member.empty() ? "" : " in " + f.member);
    out += std::string("::") + (f.severity == Severity::error ? "error" : f.severity == Severity::note ? "notice" : "warning") + " " +
           (f.path.empty() ? std::string() : "file=" + escape_prop(f.path) + ",") +
           (f.line ? "line=" + std::to_string(*f.line) + "," : std::string()) + "title=" + escape_prop(title) + "::" +
           escape_data(f.message + (f.location.empty() || f.message.rfind(f.location + ": ", 0) == 0 ? "" : " [" + f.location + "]") +
                       (f.hint.empty() ? "" : " Help: " + f.hint)) +
           "\n";
  }
  for (const auto& [where, msg] : s.unreadable) out += "::error file=" + escape_prop(where) + ",title=unreadable::" + escape_data(msg) + "\n";
  for (const auto& [where, msg] : s.read_warnings)
    out += "::notice file=" + escape_prop(where) + ",title=read warning::" + escape_data(msg) + "\n";
  return out;
}

}  // namespace cuwheel::check
