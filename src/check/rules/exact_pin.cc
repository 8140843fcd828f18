// exact-pin: a plugin must pin its core exactly. For each `pin = { DIST =
// "exact" }` of the policy, every Requires-Dist on DIST must be `DIST==V`
// (one clause, no wildcard), and there must be at least one. Field report
// 23 (jax-ml/jax#24901): a plugin wheel's loose pin let it be installed
// next to a newer core, whose internal ABI it did not match: a segfault.
// The wheel that *is* DIST is not checked (a core does not require itself).
#include "loading_util.h"
#include "rules.h"
#include "wheel_util.h"

namespace cuwheel::check::rule_impl {

void exact_pin(const Context& ctx, Emitter& out) {
  const CheckModel& m = ctx.model;
  if (!m.is_distribution() || !m.metadata || ctx.policy.pins.empty()) return;
  const CoreMetadata& md = *m.metadata;
  const std::string self = normalize_name(md.name);
  const std::string metadata_name = m.dist_info + "/METADATA";
  for (const auto& [dist, mode] : ctx.policy.pins) {
    if (mode != "exact") continue;
    const std::string want = normalize_name(dist);
    if (want == self) continue;
    bool any = false;
    for (const auto& pr : parsed_requirements(md)) {
      if (pr.req.normalized_name() != want) continue;
      any = true;
      const std::string where = metadata_location(md, "Requires-Dist", pr.text);
      if (exact_pin(pr.req)) continue;
      // Loose: say which exact pin would do. When the range admits the
      // wheel's own version, the plugin is released in lockstep with its
      // core, so suggest exactly that version.
      std::string hint;
      auto own = Version::parse(md.version);
      if (own && !pr.req.url && pr.req.specifier.contains(own->without_local(), true))
        hint = "pin the core to this " + std::string(loading::package_noun(m)) + "'s own version: `" + std::string(pr.req.name) +
               "==" + own->without_local().to_string() + "`";
      else
        hint = "pin the core to the one version this " + std::string(loading::package_noun(m)) + " was built against: `" + std::string(pr.req.name) +
               "==<version>`";
      std::string spec = pr.req.url ? "@ " + *pr.req.url
                                    : (pr.req.specifier.empty() ? std::string("no version at all")
                                                                : pr.req.specifier.to_string());
      out.emit(metadata_name, where,
               "Requires-Dist on " + printable(dist) + " is not an exact pin (" + printable(spec) +
                   "); the policy requires ==",
               hint);
    }
    if (!any)
      out.emit(metadata_name, "Requires-Dist",
               "no Requires-Dist on " + printable(dist) + ", which the policy requires to be pinned exactly",
               "add `Requires-Dist: " + dist + "==<version>` (in pyproject.toml: dependencies = [\"" + dist +
                   "==<version>\"])");
  }
}

}  // namespace cuwheel::check::rule_impl
