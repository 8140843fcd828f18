// The rule registry and the rule runner. See include/cuwheel/check/check.h.
#include <algorithm>
#include <tuple>

#include "cuwheel/check/check.h"
#include "rules/rules.h"
#include "base/suggest.h"

namespace cuwheel::check {

// Generated from docs/rules/*.md at configure time (CMakeLists.txt).
extern const std::pair<std::string_view, std::string_view> kRuleDocs[];
extern const size_t kRuleDocCount;

namespace rule_impl {
std::string base_name(const std::string& member) {
  size_t slash = member.rfind('/');
  return slash == std::string::npos ? member : member.substr(slash + 1);
}
}  // namespace rule_impl

void Emitter::emit(const std::string& member, const std::string& location, const std::string& message,
                   const std::string& hint) {
  emit_on(model_, member, location, message, hint);
}

void Emitter::note(const std::string& member, const std::string& location, const std::string& message,
                   const std::string& hint) {
  if (severity_ == Severity::off) return;
  const Severity keep = severity_;
  severity_ = Severity::note;
  emit_on(model_, member, location, message, hint);
  severity_ = keep;
}

void Emitter::warn(const std::string& member, const std::string& location, const std::string& message,
                   const std::string& hint) {
  if (severity_ == Severity::off) return;
  const Severity keep = severity_;
  if (severity_ == Severity::error) severity_ = Severity::warning;
  emit_on(model_, member, location, message, hint);
  severity_ = keep;
}

void Emitter::emit_on(const CheckModel& model, const std::string& member, const std::string& location,
                      const std::string& message, const std::string& hint) {
  Finding f;
  f.rule = rule_;
  f.severity = severity_;
  f.path = model.path;
  f.member = member;
  // An installed distribution shares its folder with the others: a finding
  // about the whole distribution names its .dist-info folder.
  if (f.member.empty() && model.kind == CheckModel::Kind::installed) f.member = model.dist_info;
  f.location = location;
  f.message = message;
  f.hint = hint;
  out_.push_back(std::move(f));
  last_ = out_.size() - 1;
}

void Emitter::attach_fix(Fix fix) {
  if (last_ && *last_ < out_.size()) out_[*last_].fix = std::move(fix);
}

const std::vector<RuleInfo>& rules() {
  static const std::vector<RuleInfo> table = [] {
    std::vector<RuleInfo> t;
#define RULE(code, name, fn, sev, group, per_run, summary) \
  t.push_back(RuleInfo{code, name, summary, Severity::sev, group, rule_impl::fn, per_run});
#include "rules/device.def"
#include "rules/loading.def"
#include "rules/wheel.def"
#include "rules/release.def"
#undef RULE
    std::sort(t.begin(), t.end(), [](const RuleInfo& a, const RuleInfo& b) { return a.code < b.code; });
    return t;
  }();
  return table;
}

const RuleInfo* find_rule(std::string_view n) {
  for (const auto& r : rules())
    if (r.name == n || r.code == n) return &r;
  return nullptr;
}

std::string suggest_rule(std::string_view n) {
  std::vector<std::string_view> names;
  for (const auto& r : rules()) names.push_back(r.name);
  return suggest::nearest(n, names);
}

std::string_view rule_doc(std::string_view name) {
  for (size_t i = 0; i < kRuleDocCount; ++i)
    if (kRuleDocs[i].first == name) return kRuleDocs[i].second;
  return {};
}

std::vector<Finding> run_rules(const std::vector<CheckModel>& models, const Policy& policy) {
  return run_rules(models, policy, {});
}

std::vector<Finding> run_rules(const std::vector<CheckModel>& models, const Policy& policy,
                               const std::vector<CheckModel>& dependencies) {
  std::vector<Finding> out;
  model::Providers providers = model::Providers::builtin();
  auto installed = [](const CheckModel& m) { return "installed in " + m.path + " (" + m.dist_info + ")"; };
  for (const auto& d : dependencies)
    providers.add_wheel(d, d.kind == CheckModel::Kind::installed ? installed(d) : "wheel " + d.path,
                        model::Provider::From::deps);
  for (const auto& m : models)
    providers.add_wheel(m,
                        m.kind == CheckModel::Kind::installed ? installed(m) : "wheel " + m.path + ", checked in the same run",
                        model::Provider::From::run);
  std::vector<model::Tree> trees;
  std::vector<model::LoadResolution> loads;
  trees.reserve(models.size());
  loads.reserve(models.size());
  for (const auto& m : models) {
    trees.push_back(model::build_tree(m));
    loads.push_back(model::resolve_loads(m, trees.back()));
  }
  auto selected = [&](const RuleInfo& r) {
    std::string name(r.name);
    if (!policy.select.empty() && std::find(policy.select.begin(), policy.select.end(), name) == policy.select.end())
      return false;
    return std::find(policy.ignore.begin(), policy.ignore.end(), name) == policy.ignore.end();
  };
  for (const auto& r : rules()) {
    if (!selected(r)) continue;
    Severity sev = r.default_severity;
    if (auto it = policy.severity.find(std::string(r.name)); it != policy.severity.end()) sev = it->second;
    if (sev == Severity::off) continue;
    for (size_t i = 0; i < models.size(); ++i) {
      if (r.per_run && i > 0) break;
      Context ctx{models[i], models, policy, providers, trees[i], loads[i]};
      Emitter em(std::string(r.name), sev, models[i], out);
      r.run(ctx, em);
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) {
    return std::tie(a.path, a.member, a.rule) < std::tie(b.path, b.member, b.rule);
  });
  return out;
}

}  // namespace cuwheel::check
