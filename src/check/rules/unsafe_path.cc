// unsafe-path: member names an installer could write outside the target, or
// that overwrite each other. Facts: PEP 427 (installers must refuse such
// names), APPNOTE 4.4.17 (names are relative, '/'-separated).
#include "rules.h"
#include "cuwheel/wheel/wheel.h"

namespace cuwheel::check::rule_impl {

void unsafe_path(const Context& ctx, Emitter& out) {
  for (const auto& m : ctx.model.members) {
    uint32_t bad = m.issues & (kIssueEmptyName | kIssueAbsolute | kIssueDotDot | kIssueBackslash | kIssueControlChar |
                               kIssueDuplicate | kIssueCaseCollision | kIssueLocalNameMismatch);
    if (!bad) continue;
    std::string what;
    if (bad & kIssueAbsolute) what = "is an absolute path";
    else if (bad & kIssueDotDot) what = "has a `..` component";
    else if (bad & kIssueBackslash) what = "contains a backslash";
    else if (bad & kIssueControlChar) what = "contains a control character";
    else if (bad & kIssueEmptyName) what = "is empty";
    else if (bad & kIssueDuplicate) what = "appears more than once";
    else if (bad & kIssueCaseCollision) what = "differs from another member only in case";
    else what = "differs from the name in its local header";
    out.emit(printable(m.name), "zip member", "member name " + what + " (" + describe_issues(bad) + ")",
             "build the wheel with a tool that writes relative, unique member names (pip wheel, build, scikit-build-core)");
  }
}

}  // namespace cuwheel::check::rule_impl
