// export-not-allowed: with a policy allowlist (`exports`, glob patterns),
// every exported dynamic symbol of every shipped shared library must match
// one pattern. One finding per library, naming the first few others and the
// count. Nothing is checked without an allowlist.
#include <fnmatch.h>

#include <string_view>

#include "loading_util.h"
#include "rules.h"

namespace cuwheel::check::rule_impl {

void export_not_allowed(const Context& ctx, Emitter& out) {
  if (ctx.policy.exports.empty()) return;
  for (const auto& lib : ctx.model.libraries) {
    if (!loading::loadable(lib)) continue;
    std::vector<std::string> bad;
    for (const auto& s : lib.exports) {
      bool ok = false;
      for (std::string_view i : {"_init", "_fini", "_edata", "_end", "__bss_start"}) ok |= s == i;
      for (const auto& g : ctx.policy.exports) ok = ok || fnmatch(g.c_str(), s.c_str(), 0) == 0;
      if (!ok) bad.push_back(s);
    }
    if (bad.empty()) continue;
    out.emit(lib.member, "dynamic symbols",
             std::to_string(bad.size()) + " exported symbol" + (bad.size() == 1 ? "" : "s") +
                 " outside the policy's allowlist: " + loading::join_some(bad, 5),
             "hide them (-fvisibility=hidden, a linker version script with `local: *;`) or extend `exports` in the "
             "policy");
  }
}

}  // namespace cuwheel::check::rule_impl
