// cuwheel release select|verify|split|plan: which distributions a tag
// releases, whether a folder holds exactly that release set, one folder per
// distribution, and the publish order. Library: cuwheel/release/release.h; user
// documentation and JSON fields: docs/release.md.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include <nlohmann/json.hpp>

#include "base/policy_file.h"
#include "cli.h"
#include "commands.h"
#include "cuwheel/base/bytes.h"
#include "cuwheel/release/release.h"

namespace cuwheel::cli {

namespace {

using json = nlohmann::ordered_json;
namespace rel = cuwheel::release;

struct ReleaseOptions {
  std::string policy;
  std::string format = "text";
  std::string tag;
  std::string version;
  std::string dir, out;
  bool no_verify = false;
  bool copy = false;
};

ReleaseOptions g_select, g_verify, g_split, g_plan;

void add_common(CLI::App* sub, ReleaseOptions& o, bool reports = false) {
  sub->add_option("--policy", o.policy,
                  "Release policy: pyproject.toml ([tool.cuwheel.release]) or cuwheel.toml ([release]); "
                  "default: searched from the current folder upward");
  if (reports)
    sub->add_option("--format", o.format, "Output: text, json, or sarif / github (the problems as a report)")
        ->check(CLI::IsMember(report_formats()));
  else
    sub->add_option("--format", o.format, "Output: text or json")->check(CLI::IsMember({"text", "json"}));
}

// Loads the policy named by --policy, or the one found from the current
// folder. Prints the error and returns nullopt when there is none.
// `unreadable`, when given, receives the policy file's path and the error
// when the file was found but could not be read.
std::optional<rel::Policy> policy_for(const ReleaseOptions& o, UnreadableInput* unreadable = nullptr) {
  std::string path = o.policy;
  if (path.empty()) {
    path = rel::find_policy_file(".");
    // Name it relative to the current folder ("pyproject.toml",
    // "../pyproject.toml"), as the user would.
    std::error_code ec;
    std::filesystem::path cwd = std::filesystem::current_path(ec);
    if (!path.empty() && !ec) {
      std::string relative = std::filesystem::path(path).lexically_relative(cwd).string();
      if (!relative.empty()) path = relative;
    }
    if (path.empty()) {
      std::string hint = policyfile::near_miss(".", "release");
      print_error("release",
                  "no release policy: add [tool.cuwheel.release] to pyproject.toml or [release] to cuwheel.toml "
                  "(docs/release.md), or give --policy FILE" + (hint.empty() ? "" : " (" + hint + ")"));
      return std::nullopt;
    }
  }
  auto p = rel::load_policy(path);
  if (!p) {
    print_error("", p.error().message());
    if (unreadable)
      *unreadable = {path, "", p.error().message(), "fix the policy file at the line named (TOML, docs/release.md)"};
    return std::nullopt;
  }
  return *p;
}

json document(const std::string& command, const rel::Policy& policy) {
  json doc;
  doc["schema"] = 1;
  doc["tool"] = "cuwheel " CUWHEEL_VERSION;
  doc["command"] = "release " + command;
  doc["policy"] = policy.source;
  return doc;
}

void print(const json& doc) {
  std::cout << doc.dump(2, ' ', false, json::error_handler_t::replace) << "\n";
}

json index_json(const rel::Index& i, const std::string& role) {
  return json{{"role", role}, {"name", i.name}, {"environment", i.environment}, {"repository_url", i.repository_url}};
}

json tag_json(const rel::TagInfo& t) {
  return json{{"tag", t.tag},
              {"version", t.version_text},
              {"kind", std::string(rel::to_string(t.kind))},
              {"prerelease", t.version.is_prerelease()},
              {"production", t.to_production}};
}

json verify_json(const rel::VerifyReport& r) {
  json doc;
  doc.update(tag_json(r.selection.tag));
  doc["ok"] = r.ok();
  json expected = json::array();
  for (const auto& e : r.expected)
    expected.push_back(json{{"distribution", e.distribution},
                            {"kind", e.kind},
                            {"slot", e.slot},
                            {"file", e.file.empty() ? json(nullptr) : json(e.file)},
                            {"example", e.example}});
  doc["expected"] = expected;
  doc["files"] = r.files;
  json findings = json::array();
  for (const auto& f : r.findings) findings.push_back(json{{"file", f.member}, {"code", f.rule}, {"message", f.message}});
  doc["findings"] = findings;
  return doc;
}

void print_findings_text(const std::string& dir, const rel::VerifyReport& r) {
  // File names and METADATA/WHEEL values come from the input: escaped, so
  // that a name holding a line break cannot start a CI workflow command.
  for (const auto& f : r.findings)
    std::printf("%s/%s: error[%s]: %s\n", printable(dir).c_str(), printable(f.member).c_str(), f.rule.c_str(),
                printable(f.message).c_str());
  // An expected slot counts only when its file is there and has no problem
  // of its own (a file of another version fills a slot but does not pass).
  size_t found = 0;
  for (const auto& e : r.expected) {
    if (e.file.empty()) continue;
    bool clean = true;
    for (const auto& f : r.findings) clean = clean && f.member != e.file;
    found += clean;
  }
  std::printf("%s: %zu of %zu expected files for %s pass, %zu file%s in the folder, %zu problem%s\n", printable(dir).c_str(), found,
              r.expected.size(), r.selection.tag.version_text.c_str(), r.files.size(), r.files.size() == 1 ? "" : "s",
              r.findings.size(), r.findings.size() == 1 ? "" : "s");
}

int verify_status(const rel::VerifyReport& r) {
  if (r.any_unreadable()) return kExitUnreadable;
  return r.ok() ? kExitOk : kExitFindings;
}

}  // namespace

// --- select ----------------------------------------------------------------

void setup_release_select(CLI::App* sub) {
  sub->add_option("--tag", g_select.tag, "Release tag, e.g. v0.2.0 or v0.2.0rc1")->required();
  add_common(sub, g_select);
}

int run_release_select() {
  auto policy = policy_for(g_select);
  if (!policy) return kExitUnreadable;
  auto sel = rel::select(g_select.tag, *policy);
  if (!sel) {
    print_error("", sel.error().message());
    return kExitUnreadable;
  }
  if (g_select.format == "json") {
    json doc = document("select", *policy);
    doc.update(tag_json(sel->tag));
    doc["plugins"] = sel->plugins;
    json indexes = json::array();
    for (size_t i = 0; i < sel->indexes.size(); ++i)
      indexes.push_back(index_json(sel->indexes[i], i == 0 ? "test" : "production"));
    doc["indexes"] = indexes;
    json dists = json::array();
    for (const auto& d : sel->distributions) {
      json envs = json::array();
      for (const auto& i : sel->indexes) envs.push_back(rel::environment_for(i, d));
      dists.push_back(json{{"name", d.normalized},
                           {"core", d.core},
                           {"file_prefix", d.file_prefix},
                           {"environment_suffix", d.environment_suffix},
                           {"directory", d.directory},
                           {"environments", envs}});
    }
    doc["distributions"] = dists;
    print(doc);
    return kExitOk;
  }
  std::string idx;
  for (const auto& i : sel->indexes) idx += (idx.empty() ? "" : ", ") + i.name;
  std::printf("%s: version %s (%s), to %s\n", sel->tag.tag.c_str(), sel->tag.version_text.c_str(),
              std::string(rel::to_string(sel->tag.kind)).c_str(), idx.c_str());
  if (!sel->tag.to_production)
    std::printf("  a pre-release: the test index only\n");
  if (!policy->plugins.empty() && !sel->plugins)
    std::printf("  no plugins: they ship from %s (plugins-since)\n",
                policy->plugins_since ? policy->plugins_since->to_string().c_str() : "?");
  for (const auto& d : sel->distributions) {
    std::string envs;
    for (const auto& i : sel->indexes) envs += (envs.empty() ? "" : ", ") + rel::environment_for(i, d);
    std::printf("  %-20s %-6s files %s-*  environments %s\n", d.normalized.c_str(), d.core ? "core" : "plugin",
                d.file_prefix.c_str(), envs.c_str());
  }
  return kExitOk;
}

// --- verify ----------------------------------------------------------------

void setup_release_verify(CLI::App* sub) {
  sub->add_option("DIR", g_verify.dir, "Folder of built wheels and sdists")->required();
  sub->add_option("--version", g_verify.version, "Release version or tag, e.g. 0.2.0 or v0.2.0")->required();
  add_common(sub, g_verify, true);
}

// verify could not read the policy file or list the folder (exit status
// 2): in sarif and github the report of it (release/unreadable, CW611), in
// json a document with an `unreadable` list. A version that does not
// parse, or no policy at all, is a usage error with no report.
int verify_unreadable(const UnreadableInput& u) {
  if (g_verify.format == "json") {
    json doc = {{"schema", 1}, {"tool", "cuwheel " CUWHEEL_VERSION}, {"command", "release verify"},
                {"directory", g_verify.dir}, {"unreadable", unreadable_json({u})}};
    print(doc);
  } else {
    std::cout << render_unreadable(g_verify.format, "release", "unreadable", {u}, 1);
    std::cout.flush();
  }
  return kExitUnreadable;
}

int run_release_verify() {
  UnreadableInput bad_policy;
  auto policy = policy_for(g_verify, &bad_policy);
  if (!policy) return bad_policy.message.empty() ? kExitUnreadable : verify_unreadable(bad_policy);
  auto r = rel::verify_release(g_verify.dir, g_verify.version, *policy);
  if (!r) {
    print_error("", r.error().message());
    // The folder's errors start with its path (include/cuwheel/release/release.h);
    // the version's start with "version" or "tag".
    if (r.error().message().rfind(g_verify.dir + ": ", 0) == 0)
      return verify_unreadable({g_verify.dir, "", r.error().message(), "give the folder the build wrote its wheels and sdists to"});
    return kExitUnreadable;
  }
  if (g_verify.format == "json") {
    json doc = document("verify", *policy);
    doc["directory"] = g_verify.dir;
    doc.update(verify_json(*r));
    print(doc);
  } else if (g_verify.format == "sarif" || g_verify.format == "github") {
    std::cout << render_diagnostics(g_verify.format, "release", r->findings, 1, r->any_unreadable());
    std::cout.flush();
  } else {
    print_findings_text(g_verify.dir, *r);
  }
  return verify_status(*r);
}

// --- split -----------------------------------------------------------------

void setup_release_split(CLI::App* sub) {
  sub->add_option("DIR", g_split.dir, "Folder of built wheels and sdists (not modified)")->required();
  sub->add_option("OUT", g_split.out, "Output folder")->required();
  sub->add_option("--version", g_split.version, "Release version or tag, e.g. 0.2.0 or v0.2.0")->required();
  sub->add_flag("--no-verify", g_split.no_verify,
                "Split even when verify finds problems (they are printed as warnings; unassigned files are skipped)");
  sub->add_flag("--copy", g_split.copy, "Copy files instead of hard-linking them");
  add_common(sub, g_split);
}

int run_release_split() {
  auto policy = policy_for(g_split);
  if (!policy) return kExitUnreadable;
  auto r = rel::verify_release(g_split.dir, g_split.version, *policy);
  if (!r) {
    print_error("", r.error().message());
    return kExitUnreadable;
  }
  if (!r->ok()) {
    if (!g_split.no_verify) {
      if (g_split.format == "json") {
        json doc = document("split", *policy);
        doc["directory"] = g_split.dir;
        doc.update(verify_json(*r));
        doc["written"] = json::array();
        print(doc);
      } else {
        print_findings_text(g_split.dir, *r);
      }
      print_error(g_split.dir, "not split: the folder is not the release set (use --no-verify to split anyway)");
      return verify_status(*r);
    }
    for (const auto& f : r->findings) print_warning(g_split.dir + "/" + f.member, f.message + " [" + f.rule + "]");
  }
  auto actions = rel::split_release(g_split.dir, *r, g_split.out, g_split.copy);
  if (!actions) {
    print_error("", actions.error().message());
    return kExitUnreadable;
  }
  if (g_split.format == "json") {
    json doc = document("split", *policy);
    doc["directory"] = g_split.dir;
    doc.update(verify_json(*r));
    json written = json::array();
    for (const auto& a : *actions)
      written.push_back(json{{"file", a.file}, {"destination", a.destination}, {"linked", a.linked}});
    doc["written"] = written;
    print(doc);
  } else {
    for (const auto& a : *actions)
      std::printf("%s -> %s (%s)\n", printable(a.file).c_str(), printable(a.destination).c_str(),
                  a.linked ? "hard link" : "copy");
    std::printf("%zu file%s split into %s\n", actions->size(), actions->size() == 1 ? "" : "s",
                printable(g_split.out).c_str());
  }
  return kExitOk;
}

// --- plan ------------------------------------------------------------------

void setup_release_plan(CLI::App* sub) {
  sub->add_option("--tag", g_plan.tag, "Release tag, e.g. v0.2.0 or v0.2.0rc1")->required();
  add_common(sub, g_plan);
}

int run_release_plan() {
  auto policy = policy_for(g_plan);
  if (!policy) return kExitUnreadable;
  auto sel = rel::select(g_plan.tag, *policy);
  if (!sel) {
    print_error("", sel.error().message());
    return kExitUnreadable;
  }
  auto steps = rel::plan_release(*sel);
  if (g_plan.format == "json") {
    json doc = document("plan", *policy);
    doc.update(tag_json(sel->tag));
    json arr = json::array();
    json jobs = json{{"test_plugins", json::array()},
                     {"test_core", json::array()},
                     {"production_plugins", json::array()},
                     {"production_core", json::array()}};
    for (const auto& s : steps) {
      json j{{"step", s.step},
             {"stage", s.stage},
             {"id", s.id},
             {"job", s.job},
             {"index", s.index.name},
             {"repository_url", s.index.repository_url},
             {"environment", s.environment},
             {"distribution", s.distribution},
             {"core", s.core},
             {"directory", s.directory},
             {"needs", s.needs}};
      jobs[s.job].push_back(j);
      arr.push_back(std::move(j));
    }
    doc["steps"] = arr;
    doc["jobs"] = jobs;
    print(doc);
    return kExitOk;
  }
  std::printf("%s: version %s (%s), %zu upload%s\n", sel->tag.tag.c_str(), sel->tag.version_text.c_str(),
              std::string(rel::to_string(sel->tag.kind)).c_str(), steps.size(), steps.size() == 1 ? "" : "s");
  for (const auto& s : steps) {
    std::string needs;
    for (const auto& n : s.needs) needs += (needs.empty() ? "" : ", ") + n;
    std::printf("  %2d. stage %d  %-10s %-18s %-20s %-24s needs %s\n", s.step, s.stage, s.index.name.c_str(),
                s.environment.c_str(), s.distribution.c_str(), s.directory.c_str(), needs.empty() ? "-" : needs.c_str());
  }
  return kExitOk;
}

}  // namespace cuwheel::cli
