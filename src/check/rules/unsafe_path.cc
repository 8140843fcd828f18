// unsafe-path: member names an installer could write outside the target, or
// that overwrite each other. Facts: PEP 427 (installers must refuse such
// names), APPNOTE 4.4.17 (names are relative, '/'-separated). A component
// longer than 255 bytes (NAME_MAX on Linux file systems) or a name longer
// than 4,096 bytes (PATH_MAX) cannot be installed: pip fails on it with
// ENAMETOOLONG.
#include <algorithm>

#include "rules.h"
#include "cuwheel/wheel/wheel.h"

namespace cuwheel::check::rule_impl {

// At most this many findings; the rest are summed up in one more (as
// record-mismatch does), so a hostile wheel of 26,000 `../` members gives a
// report a reader (and GitHub code scanning, at most 25,000 results per
// run) can take.
constexpr size_t kMaxFindings = 20;

void unsafe_path(const Context& ctx, Emitter& out) {
  size_t found = 0;
  std::string first_left_out;
  auto emit = [&](const std::string& member, const std::string& message, const std::string& hint) {
    if (++found > kMaxFindings) {
      if (first_left_out.empty()) first_left_out = member;
      return;
    }
    out.emit(member, "zip member", message, hint);
  };
  for (const auto& m : ctx.model.members) {
    uint32_t bad = m.issues & (kIssueEmptyName | kIssueAbsolute | kIssueDotDot | kIssueBackslash | kIssueControlChar |
                               kIssueDuplicate | kIssueCaseCollision | kIssueLocalNameMismatch);
    if (!bad) {
      size_t longest = 0;
      for (size_t b = 0; b <= m.name.size();) {
        size_t e = m.name.find('/', b);
        if (e == std::string::npos) e = m.name.size();
        longest = std::max(longest, e - b);
        b = e + 1;
      }
      if (longest > 255 || m.name.size() > 4096)
        emit(printable(m.name.substr(0, 120)) + (m.name.size() > 120 ? "..." : ""),
                 "member name " +
                     (longest > 255 ? "has a component of " + std::to_string(longest) + " bytes (at most 255 on Linux)"
                                    : "is " + std::to_string(m.name.size()) + " bytes long (at most 4,096 on Linux)") +
                     ": installing it fails with 'File name too long'",
                 "shorten the file or folder name");
      continue;
    }
    std::string what;
    if (bad & kIssueAbsolute) what = "is an absolute path";
    else if (bad & kIssueDotDot) what = "has a `..` component";
    else if (bad & kIssueBackslash) what = "contains a backslash";
    else if (bad & kIssueControlChar) what = "contains a control character";
    else if (bad & kIssueEmptyName) what = "is empty";
    else if (bad & kIssueDuplicate) what = "appears more than once";
    else if (bad & kIssueCaseCollision) what = "differs from another member only in case";
    else what = "differs from the name in its local header";
    emit(printable(m.name), "member name " + what + " (" + describe_issues(bad) + ")",
         "build the wheel with a tool that writes relative, unique member names (pip wheel, build, scikit-build-core)");
  }
  if (found > kMaxFindings)
    out.emit(first_left_out, "zip member",
             "and " + std::to_string(found - kMaxFindings) + " more unsafe member names (" + std::to_string(found) +
                 " in all)",
             "build the wheel with a tool that writes relative, unique member names (pip wheel, build, scikit-build-core)");
}

}  // namespace cuwheel::check::rule_impl
