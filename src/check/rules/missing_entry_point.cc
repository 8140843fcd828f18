// missing-entry-point: each entry point the policy names ("group:name", or
// "name" in any group) must be declared in the wheel's entry_points.txt
// (PyPA "Entry points specification"). The seed's release check asks for a
// plugin's `dyng.backends` entry point, without which the core never finds it.
#include "loading_util.h"
#include "rules.h"
#include "wheel_util.h"

namespace cuwheel::check::rule_impl {

void missing_entry_point(const Context& ctx, Emitter& out) {
  const CheckModel& m = ctx.model;
  if (!m.is_distribution() || m.dist_info.empty() || ctx.policy.entry_points.empty()) return;
  bool has_file = false;
  for (const auto& mm : m.members) has_file = has_file || mm.name == m.dist_info + "/entry_points.txt";
  for (const auto& want : ctx.policy.entry_points) {
    size_t colon = want.find(':');
    std::string group = colon == std::string::npos ? std::string() : want.substr(0, colon);
    std::string name = colon == std::string::npos ? want : want.substr(colon + 1);
    bool found = false;
    for (const auto& ep : m.entry_points)
      found = found || (ep.name == name && (group.empty() || ep.group == group));
    if (found) continue;
    std::string what = group.empty() ? "entry point " + printable(name) : "entry point " + printable(name) +
                                                                              " in group " + printable(group);
    out.emit(m.dist_info + "/entry_points.txt", group.empty() ? "" : "[" + group + "]",
             what + (has_file ? " is not declared" : " is not declared (the " + std::string(loading::package_noun(m)) + " has no entry_points.txt)"),
             "declare it in pyproject.toml: [project.entry-points." + (group.empty() ? std::string("GROUP") : group) +
                 "] " + name + " = \"module:object\" (console_scripts: [project.scripts])");
  }
}

}  // namespace cuwheel::check::rule_impl
