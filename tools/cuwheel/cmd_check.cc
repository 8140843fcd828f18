// `cuwheel check`, `cuwheel rules`, `cuwheel rule NAME`.
//
// check: builds a model per input (check.h), applies the policy's rules and
// prints the findings. Exit status 0 when no error-level finding, 1 when
// there is one, 2 when an input (or the policy) cannot be read.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>

#include "cli.h"
#include "cuwheel/check.h"
#include "cuwheel/report.h"

namespace cuwheel::cli {

namespace {

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i <= s.size()) {
    size_t j = s.find(',', i);
    if (j == std::string::npos) j = s.size();
    std::string item = s.substr(i, j - i);
    while (!item.empty() && item.front() == ' ') item.erase(item.begin());
    while (!item.empty() && item.back() == ' ') item.pop_back();
    if (!item.empty()) out.push_back(item);
    i = j + 1;
  }
  return out;
}

// Resolves rule names/codes, with a suggestion for typos.
bool resolve_rules(std::vector<std::string>& names, const char* flag) {
  for (auto& n : names) {
    const check::RuleInfo* r = check::find_rule(n);
    if (!r) {
      std::string hint = check::suggest_rule(n);
      print_error(flag, "unknown rule \"" + n + "\"" + (hint.empty() ? "" : " (did you mean \"" + hint + "\"?)"));
      return false;
    }
    n = std::string(r->name);
  }
  return true;
}

}  // namespace

int run_check(const CheckOptions& o) {
  // 1. The policy: file, then flags on top.
  check::Policy policy;
  std::string file = o.policy;
  if (file.empty()) file = check::find_policy_file(".");
  if (!file.empty()) {
    auto p = check::load_policy(file);
    if (!p) {
      print_error("", p.error().message());
      return kExitUnreadable;
    }
    policy = std::move(*p);
  }
  if (o.cuda_major) policy.cuda_major = *o.cuda_major;
  if (!o.sass.empty()) policy.sass = split_commas(o.sass);
  if (o.sass_exact) policy.sass_exact = true;
  if (!o.ptx.empty()) {
    if (o.ptx == "newest") policy.ptx_mode = check::Policy::PtxMode::newest;
    else if (o.ptx == "none") policy.ptx_mode = check::Policy::PtxMode::none;
    else {
      policy.ptx_mode = check::Policy::PtxMode::list;
      policy.ptx = split_commas(o.ptx);
    }
  }
  if (!o.gpus.empty()) policy.gpus = split_commas(o.gpus);
  if (!o.min_driver.empty()) policy.min_driver = o.min_driver;
  if (!o.max_size.empty()) {
    auto b = check::parse_size(o.max_size);
    if (!b) {
      print_error("--max-size", "\"" + o.max_size + "\" is not a size such as 200MB");
      return kExitUnreadable;
    }
    policy.max_size = *b;
  }
  if (!o.max_installed_size.empty()) {
    auto b = check::parse_size(o.max_installed_size);
    if (!b) {
      print_error("--max-installed-size", "\"" + o.max_installed_size + "\" is not a size such as 1GB");
      return kExitUnreadable;
    }
    policy.max_installed_size = *b;
  }
  for (const auto& ep : o.entry_points) {
    // GROUP:NAME, or NAME alone (any group), as the policy key.
    size_t colon = ep.find(':');
    bool bad = ep.empty() || ep.find_first_of(" \t=") != std::string::npos ||
               (colon != std::string::npos && (colon == 0 || colon + 1 == ep.size() || ep.find(':', colon + 1) != std::string::npos));
    if (bad) {
      print_error("--entry-point", "\"" + ep + "\" must be GROUP:NAME or NAME");
      return kExitUnreadable;
    }
    if (std::find(policy.entry_points.begin(), policy.entry_points.end(), ep) == policy.entry_points.end())
      policy.entry_points.push_back(ep);
  }
  if (!o.exports.empty()) policy.exports = split_commas(o.exports);
  if (!o.license_files.empty()) policy.license_files = split_commas(o.license_files);
  for (const auto& p : o.pins) {
    size_t eq = p.find('=');
    if (eq == std::string::npos || p.substr(eq + 1) != "exact") {
      print_error("--pin", "\"" + p + "\" must be DIST=exact");
      return kExitUnreadable;
    }
    policy.pins[p.substr(0, eq)] = "exact";
  }
  for (const auto& sv : o.severity) {
    size_t eq = sv.find('=');
    auto sev = eq == std::string::npos ? std::nullopt : check::parse_severity(sv.substr(eq + 1));
    std::vector<std::string> one{eq == std::string::npos ? sv : sv.substr(0, eq)};
    if (!sev) {
      print_error("--severity", "\"" + sv + "\" must be RULE=error|warning|off");
      return kExitUnreadable;
    }
    if (!resolve_rules(one, "--severity")) return kExitUnreadable;
    policy.severity[one[0]] = *sev;
  }
  if (auto st = check::validate_policy(policy); !st) {
    print_error("", st.error().message());
    return kExitUnreadable;
  }
  std::vector<std::string> select = o.select, ignore = o.ignore;
  if (!resolve_rules(select, "--select") || !resolve_rules(ignore, "--ignore")) return kExitUnreadable;
  if (!select.empty()) policy.select = select;
  for (const auto& i : ignore) policy.ignore.push_back(i);

  // 2. Models.
  Progress progress;
  std::vector<check::CheckModel> models;
  check::ReportSummary summary;
  summary.policy_source = policy.source;
  check::BuildOptions bo;
  for (size_t i = 0; i < o.paths.size(); ++i) {
    progress.update(o.paths[i], i, o.paths.size());
    auto ms = check::build_models(o.paths[i], bo, [&](const std::string& what) { progress.update(what, i, o.paths.size()); });
    if (!ms) {
      summary.unreadable.emplace_back(o.paths[i], ms.error().message());
      continue;
    }
    for (auto& m : *ms) {
      for (const auto& e : m.read_errors) summary.unreadable.push_back(e);
      models.push_back(std::move(m));
    }
  }
  progress.clear();

  // 3. Rules and report.
  auto findings = check::run_rules(models, policy);
  summary.inputs = models.size();
  for (const auto& f : findings) (f.severity == check::Severity::error ? summary.errors : summary.warnings)++;
  std::string out;
  if (o.format == "json") out = check::render_json(findings, summary);
  else if (o.format == "sarif") out = check::render_sarif(findings, summary);
  else if (o.format == "github") out = check::render_github(findings, summary);
  else out = check::render_text(findings, summary);
  std::cout << out;
  std::cout.flush();
  if (!summary.unreadable.empty()) return kExitUnreadable;
  return summary.errors ? kExitFindings : kExitOk;
}

int run_rules() {
  std::string group;
  for (const auto& r : check::rules()) {
    std::printf("%-6s %-28s %-8s %s\n", std::string(r.code).c_str(), std::string(r.name).c_str(),
                std::string(check::to_string(r.default_severity)).c_str(), std::string(r.summary).c_str());
  }
  return kExitOk;
}

int run_rule(const std::string& name) {
  const check::RuleInfo* r = check::find_rule(name);
  if (!r) {
    std::string hint = check::suggest_rule(name);
    print_error("rule", "unknown rule \"" + name + "\"" + (hint.empty() ? "" : " (did you mean \"" + hint + "\"?)"));
    return kExitUnreadable;
  }
  std::string_view doc = check::rule_doc(r->name);
  if (doc.empty()) std::printf("%s (%s)\n\n%s\n", std::string(r->name).c_str(), std::string(r->code).c_str(), std::string(r->summary).c_str());
  else std::cout << doc;
  return kExitOk;
}

}  // namespace cuwheel::cli
