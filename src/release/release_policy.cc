// Release policy, tags, selection and publish plan. See include/cuwheel/release/release.h
// and docs/release.md. toml++ is used header-only with exceptions off, as in
// src/check/policy.cc: parse errors come back as values.
#include "base/toml_safe.h"
#include "base/policy_file.h"
#include "base/suggest.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>

#include "cuwheel/base/fileio.h"
#include "cuwheel/wheel/pep508.h"
#include "cuwheel/release/release.h"

namespace fs = std::filesystem;

namespace cuwheel::release {

namespace {

// toml++ is fed only text that src/base/toml_safe.h made safe for it.
Expected<std::string> toml_safe_text(std::string_view text, const std::string& source) {
  return tomlsafe::safe_text(text, source);
}

// Index names, environments, URLs and the dist folder: printable ASCII
// without spaces (GitHub environment names and upload URLs are such).
bool printable_ascii(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c <= 0x20 || c >= 0x7f) return false;
  return true;
}

std::string where(const std::string& source, const toml::node& n) {
  return source + ":" + std::to_string(n.source().begin.line);
}

// Rejects a key not in `known`, suggesting the nearest one (suggest.h).
Status check_keys(const std::string& source, const toml::table& t, std::initializer_list<std::string_view> known,
                  std::string_view table_name) {
  for (const auto& [k, v] : t) {
    std::string_view key = k.str();
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    return Error(where(source, v) + ": unknown key \"" + std::string(key) + "\" in " + std::string(table_name) +
                 suggest::did_you_mean(key, known));
  }
  return Ok{};
}

Expected<std::string> get_string(const std::string& source, const toml::table& t, std::string_view key,
                                 std::string_view table_name) {
  const toml::node* n = t.get(key);
  const auto* s = n ? n->as_string() : nullptr;
  if (!s) return Error(where(source, *n) + ": " + std::string(table_name) + "." + std::string(key) + " must be a string");
  return std::string(s->get());
}

Status string_list(const std::string& source, const toml::node& n, std::string_view key, std::vector<std::string>& out) {
  const auto* arr = n.as_array();
  if (!arr) return Error(where(source, n) + ": " + std::string(key) + " must be a list of strings");
  for (const auto& e : *arr) {
    const auto* s = e.as_string();
    if (!s) return Error(where(source, e) + ": " + std::string(key) + " must be a list of strings");
    out.push_back(s->get());
  }
  return Ok{};
}

// One component of a PEP 425 tag: lowercase letters, digits, `_` (platform
// tags also use `.`-joined sets in file names, but a policy names one tag).
bool valid_tag_part(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!(std::islower(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_'))
      return false;
  return true;
}

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> parts;
  size_t i = 0;
  while (true) {
    size_t j = s.find(sep, i);
    parts.emplace_back(s.substr(i, j == std::string_view::npos ? std::string_view::npos : j - i));
    if (j == std::string_view::npos) break;
    i = j + 1;
  }
  return parts;
}

Status parse_index(const std::string& source, const toml::node& n, std::string_view role, Index& index) {
  const auto* t = n.as_table();
  std::string name = "indexes." + std::string(role);
  if (!t) return Error(where(source, n) + ": " + name + " must be a table such as { name = \"pypi\", environment = \"pypi\" }");
  if (auto st = check_keys(source, *t, {"name", "environment", "repository-url"}, name); !st) return st;
  for (auto [key, field] : {std::pair{"name", &index.name}, std::pair{"environment", &index.environment},
                            std::pair{"repository-url", &index.repository_url}}) {
    if (!t->get(key)) continue;
    auto s = get_string(source, *t, key, name);
    if (!s) return s.error();
    if (!printable_ascii(*s))
      return Error(where(source, *t->get(key)) + ": " + name + "." + key + " must be printable ASCII without spaces");
    if (std::string_view(key) == "repository-url") {
      // An upload endpoint (PyPI's "legacy" upload API): an http(s) URL with
      // a host, e.g. https://test.pypi.org/legacy/.
      std::string_view u = *s;
      size_t scheme = u.rfind("https://", 0) == 0 ? 8 : u.rfind("http://", 0) == 0 ? 7 : 0;
      if (scheme == 0 || u.size() == scheme || u[scheme] == '/')
        return Error(where(source, *t->get(key)) + ": " + name + ".repository-url \"" + *s +
                     "\" is not an http(s) URL with a host (such as https://test.pypi.org/legacy/)");
      // The plan carries the URL into CI outputs and logs: no credentials.
      std::string_view authority = u.substr(scheme, u.find('/', scheme) - scheme);
      if (authority.find('@') != std::string_view::npos)
        return Error(where(source, *t->get(key)) + ": " + name +
                     ".repository-url holds credentials (user@ or user:password@); the plan prints the URL into CI "
                     "logs: authenticate with trusted publishing or a secret token instead");
    }
    *field = *s;
  }
  return Ok{};
}

}  // namespace

std::string file_prefix(std::string_view name) {
  std::string n = normalize_name(name);
  std::replace(n.begin(), n.end(), '-', '_');
  return n;
}

Expected<Policy> parse_policy(std::string_view toml_text, const std::string& source) {
  auto safe = toml_safe_text(toml_text, source);
  if (!safe) return safe.error();
  auto parsed = toml::parse(*safe, std::string_view(source));
  if (!parsed) {
    const auto& err = parsed.error();
    return Error(source + ":" + std::to_string(err.source().begin.line) + ": " + std::string(err.description()));
  }
  const toml::table& root = parsed.table();
  const toml::table* t = nullptr;
  std::string table_name = "[tool.cuwheel.release]";
  if (const auto* tool = root.get_as<toml::table>("tool"))
    if (const auto* cw = tool->get_as<toml::table>("cuwheel")) {
      if (const auto* n = cw->get("release")) {
        t = n->as_table();
        if (!t) return Error(where(source, *n) + ": tool.cuwheel.release must be a table");
      }
    }
  const bool is_pyproject = fs::path(source).filename() == "pyproject.toml";
  if (!t && is_pyproject) return Error(source + ": no [tool.cuwheel.release] table");
  if (!t) {
    table_name = "[release]";
    if (const auto* n = root.get("release")) {
      t = n->as_table();
      if (!t) return Error(where(source, *n) + ": release must be a table");
    }
  }
  if (!t) return Error(source + ": no [release] table (nor [tool.cuwheel.release])");

  Policy p;
  p.source = source;
  p.line = static_cast<uint32_t>(t->source().begin.line);
  if (auto st = check_keys(source, *t,
                           {"core", "plugins", "plugins-since", "platforms", "plugin-tag", "core-wheels", "core-sdist",
                            "tag-prefix", "release-segments", "dist-dir", "indexes"},
                           table_name);
      !st)
    return st.error();
  const std::string at = source + ":" + std::to_string(p.line);

  // core
  if (!t->get("core")) return Error(at + ": " + table_name + " needs core = \"<distribution name>\"");
  auto core = get_string(source, *t, "core", "release");
  if (!core) return core.error();
  if (!is_valid_name(*core))
    return Error(where(source, *t->get("core")) + ": core \"" + *core +
                 "\" is not a valid distribution name (letters, digits, '.', '_', '-', starting and ending with a letter or digit)");
  p.core = *core;
  const std::string core_norm = normalize_name(p.core);

  // plugins
  std::set<std::string> seen{core_norm};
  if (const auto* n = t->get("plugins")) {
    const auto* arr = n->as_array();
    if (!arr) return Error(where(source, *n) + ": plugins must be a list of names or { name = ..., environment-suffix = ... } tables");
    for (const auto& e : *arr) {
      Plugin plugin;
      if (const auto* s = e.as_string()) {
        plugin.name = s->get();
      } else if (const auto* pt = e.as_table()) {
        if (auto st = check_keys(source, *pt, {"name", "environment-suffix"}, "a plugin table"); !st) return st.error();
        if (!pt->get("name")) return Error(where(source, e) + ": a plugin table needs name = \"...\"");
        auto name = get_string(source, *pt, "name", "plugin");
        if (!name) return name.error();
        plugin.name = *name;
        if (pt->get("environment-suffix")) {
          auto suffix = get_string(source, *pt, "environment-suffix", "plugin");
          if (!suffix) return suffix.error();
          if (suffix->empty() || !is_valid_name(*suffix))
            return Error(where(source, *pt->get("environment-suffix")) + ": environment-suffix \"" + *suffix +
                         "\" must be letters, digits, '.', '_', '-'");
          plugin.environment_suffix = *suffix;
        }
      } else {
        return Error(where(source, e) + ": plugins must be a list of names or { name = ..., environment-suffix = ... } tables");
      }
      if (!is_valid_name(plugin.name))
        return Error(where(source, e) + ": plugin \"" + plugin.name + "\" is not a valid distribution name");
      std::string norm = normalize_name(plugin.name);
      if (norm == core_norm) return Error(where(source, e) + ": plugin \"" + plugin.name + "\" is the core distribution");
      if (!seen.insert(norm).second)
        return Error(where(source, e) + ": plugin \"" + plugin.name + "\" is listed twice (PEP 503 names compared)");
      if (plugin.environment_suffix.empty())
        plugin.environment_suffix = norm.rfind(core_norm + "-", 0) == 0 ? norm.substr(core_norm.size() + 1) : norm;
      p.plugins.push_back(std::move(plugin));
    }
  }

  if (const auto* n = t->get("plugins-since")) {
    const auto* s = n->as_string();
    if (!s) return Error(where(source, *n) + ": plugins-since must be a version string such as \"0.2\"");
    auto v = Version::parse(s->get());
    if (!v) return Error(where(source, *n) + ": plugins-since: " + v.error().message());
    if (v->pre || v->post || v->dev || v->has_local())
      return Error(where(source, *n) + ": plugins-since \"" + std::string(s->get()) +
                   "\" must be a release such as \"0.2\" (no pre, post, dev or local part)");
    p.plugins_since = *v;
  }

  if (const auto* n = t->get("platforms")) {
    if (auto st = string_list(source, *n, "platforms", p.platforms); !st) return st.error();
    std::set<std::string> plats;
    for (const auto& plat : p.platforms) {
      if (!valid_tag_part(plat))
        return Error(where(source, *n) + ": platforms: \"" + plat +
                     "\" is not a platform tag such as manylinux_2_28_x86_64 (PEP 425)");
      if (!plats.insert(plat).second) return Error(where(source, *n) + ": platforms: \"" + plat + "\" is listed twice");
    }
  }
  if (!p.plugins.empty() && p.platforms.empty())
    return Error(at + ": plugins need platforms = [...] (one plugin wheel per platform)");

  if (const auto* n = t->get("plugin-tag")) {
    auto s = get_string(source, *t, "plugin-tag", "release");
    if (!s) return s.error();
    auto parts = split(*s, '-');
    if (parts.size() != 2 || !valid_tag_part(parts[0]) || !valid_tag_part(parts[1]))
      return Error(where(source, *n) + ": plugin-tag \"" + *s + "\" is not \"python-abi\" such as \"cp312-abi3\" (PEP 425)");
    p.plugin_tag = *s;
  }

  if (const auto* n = t->get("core-wheels")) {
    p.core_wheels.clear();
    if (auto st = string_list(source, *n, "core-wheels", p.core_wheels); !st) return st.error();
    std::set<std::string> tags;
    for (const auto& tag : p.core_wheels) {
      auto parts = split(tag, '-');
      if (parts.size() != 3 || !valid_tag_part(parts[0]) || !valid_tag_part(parts[1]) || !valid_tag_part(parts[2]))
        return Error(where(source, *n) + ": core-wheels: \"" + tag +
                     "\" is not a tag \"python-abi-platform\" such as \"py3-none-any\" (PEP 425)");
      if (!tags.insert(tag).second) return Error(where(source, *n) + ": core-wheels: \"" + tag + "\" is listed twice");
    }
  }

  if (const auto* n = t->get("core-sdist")) {
    auto b = n->value<bool>();
    if (!b || !n->is_boolean()) return Error(where(source, *n) + ": core-sdist must be true or false");
    p.core_sdist = *b;
  }
  if (p.core_wheels.empty() && !p.core_sdist) return Error(at + ": the core ships nothing (core-wheels = [] and core-sdist = false)");

  if (const auto* n = t->get("tag-prefix")) {
    auto s = get_string(source, *t, "tag-prefix", "release");
    if (!s) return s.error();
    for (char c : *s)
      if (!(std::isalpha(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '/' || c == '.'))
        return Error(where(source, *n) + ": tag-prefix \"" + *s + "\" may hold only letters, '-', '_', '/' and '.'");
    if (s->rfind("refs/", 0) == 0)
      return Error(where(source, *n) + ": tag-prefix \"" + *s +
                   "\" starts with a ref path; the prefix is part of the tag's name (\"v\" for v1.2.3), and tags "
                   "are given by name (GITHUB_REF_NAME)");
    p.tag_prefix = *s;
  }
  if (const auto* n = t->get("release-segments")) {
    auto v = n->value<int64_t>();
    if (!v || !n->is_integer() || *v < 0 || *v > 10)
      return Error(where(source, *n) + ": release-segments must be an integer from 0 (any) to 10");
    p.release_segments = static_cast<uint32_t>(*v);
  }
  if (t->get("dist-dir")) {
    auto s = get_string(source, *t, "dist-dir", "release");
    if (!s) return s.error();
    if (!printable_ascii(*s))
      return Error(where(source, *t->get("dist-dir")) + ": dist-dir must be printable ASCII without spaces");
    while (s->size() > 1 && s->back() == '/') s->pop_back();
    p.dist_dir = *s;
  }
  if (const auto* n = t->get("indexes")) {
    const auto* it = n->as_table();
    if (!it) return Error(where(source, *n) + ": indexes must be a table with test and production");
    if (auto st = check_keys(source, *it, {"test", "production"}, "indexes"); !st) return st.error();
    if (const auto* tn = it->get("test"))
      if (auto st = parse_index(source, *tn, "test", p.test); !st) return st.error();
    if (const auto* pn = it->get("production"))
      if (auto st = parse_index(source, *pn, "production", p.production); !st) return st.error();
    if (p.test.name == p.production.name)
      return Error(where(source, *n) + ": indexes.test and indexes.production have the same name \"" + p.test.name + "\"");
    if (p.test.environment == p.production.environment)
      return Error(where(source, *n) + ": indexes.test and indexes.production have the same environment \"" +
                   p.test.environment + "\"");
  }
  return p;
}

Expected<Policy> load_policy(const std::string& path) {
  auto text = read_whole_file(path, size_t{1} << 20);
  if (!text) return text.error();
  return parse_policy(*text, path);
}

std::string find_policy_file(const std::string& start) { return policyfile::find(start, "release"); }

// ---------------------------------------------------------------------------

std::string_view to_string(ReleaseKind kind) {
  switch (kind) {
    case ReleaseKind::kFinal: return "final";
    case ReleaseKind::kPre: return "pre";
    case ReleaseKind::kPost: return "post";
    case ReleaseKind::kDev: return "dev";
  }
  return "final";
}

Expected<TagInfo> parse_tag(std::string_view tag, const Policy& policy) {
  const std::string quoted = "tag \"" + std::string(tag) + "\"";
  if (tag.empty()) return Error("empty tag");
  for (char c : tag)
    if (static_cast<unsigned char>(c) <= 0x20 || c == 0x7f)
      return Error(quoted + " contains whitespace or a control character");
  const std::string& prefix = policy.tag_prefix;
  if (tag.rfind("refs/tags/", 0) == 0 && prefix.rfind("refs/tags/", 0) != 0)
    return Error(quoted + " is a ref; give the tag name alone (\"" + std::string(tag.substr(10)) +
                 "\", GITHUB_REF_NAME in GitHub Actions)");
  if (tag.substr(0, prefix.size()) != prefix) {
    std::string hint;
    auto bare = Version::parse(tag);
    if (bare && !bare->has_local()) hint = " (write \"" + prefix + bare->to_string() + "\")";
    return Error(quoted + " does not start with the tag prefix \"" + prefix + "\"" + hint);
  }
  std::string_view rest = tag.substr(prefix.size());
  auto v = Version::parse(rest);
  if (!v) return Error(quoted + ": \"" + std::string(rest) + "\" is not a PEP 440 version: " + v.error().message());
  if (v->has_local())
    return Error(quoted + ": version " + v->to_string() +
                 " has a local label (+...), which package indexes refuse (PEP 440, \"Local version identifiers\")");
  const std::string norm = v->to_string();
  if (norm != rest)
    return Error(quoted + ": " + (prefix.empty() ? "" : "after the prefix \"" + prefix + "\", ") + "\"" +
                 std::string(rest) + "\" is not a normalized PEP 440 version (write the tag as \"" + prefix + norm +
                 "\")");
  if (policy.release_segments != 0 && v->release.size() != policy.release_segments) {
    std::string msg = quoted + ": the version has " + std::to_string(v->release.size()) + " release segment" +
                      (v->release.size() == 1 ? "" : "s") + "; this project's tags have " +
                      std::to_string(policy.release_segments) + " (release-segments)";
    if (v->release.size() < policy.release_segments) {
      Version padded = *v;
      padded.release.resize(policy.release_segments, 0);
      msg += " (write \"" + prefix + padded.to_string() + "\")";
    }
    return Error(msg);
  }
  TagInfo info;
  info.tag = std::string(tag);
  info.version = *v;
  info.version_text = norm;
  info.kind = v->dev ? ReleaseKind::kDev : v->pre ? ReleaseKind::kPre : v->post ? ReleaseKind::kPost : ReleaseKind::kFinal;
  info.to_production = !v->is_prerelease();
  return info;
}

bool plugins_ship(const Policy& policy, const Version& version) {
  if (policy.plugins.empty()) return false;
  if (!policy.plugins_since) return true;
  const Version& since = *policy.plugins_since;
  if (version.epoch != since.epoch) return version.epoch > since.epoch;
  size_t n = std::max(version.release.size(), since.release.size());
  for (size_t i = 0; i < n; ++i) {
    uint64_t a = i < version.release.size() ? version.release[i] : 0;
    uint64_t b = i < since.release.size() ? since.release[i] : 0;
    if (a != b) return a > b;
  }
  return true;
}

std::string environment_for(const Index& index, const Distribution& dist) {
  if (dist.core || dist.environment_suffix.empty()) return index.environment;
  return index.environment + "-" + dist.environment_suffix;
}

Expected<Selection> select(std::string_view tag, const Policy& policy) {
  auto info = parse_tag(tag, policy);
  if (!info) return info.error();
  Selection sel;
  sel.tag = *info;
  sel.plugins = plugins_ship(policy, info->version);
  auto make = [&](const std::string& name, const std::string& suffix, bool core) {
    Distribution d;
    d.name = name;
    d.normalized = normalize_name(name);
    d.file_prefix = file_prefix(name);
    d.environment_suffix = suffix;
    d.core = core;
    d.directory = policy.dist_dir.empty() ? d.normalized : policy.dist_dir + "/" + d.normalized;
    return d;
  };
  if (sel.plugins)
    for (const auto& p : policy.plugins) sel.distributions.push_back(make(p.name, p.environment_suffix, false));
  sel.distributions.push_back(make(policy.core, "", true));
  sel.indexes.push_back(policy.test);
  if (info->to_production) sel.indexes.push_back(policy.production);
  return sel;
}

std::vector<PlanStep> plan_release(const Selection& selection) {
  std::vector<PlanStep> steps;
  int step = 0, stage = 0;
  std::vector<std::string> previous;  // what the next index waits for
  for (size_t i = 0; i < selection.indexes.size(); ++i) {
    const Index& index = selection.indexes[i];
    const std::string role = i == 0 ? "test" : "production";
    std::vector<std::string> plugin_ids;
    bool any_plugin = false;
    for (const auto& d : selection.distributions) any_plugin = any_plugin || !d.core;
    if (any_plugin) ++stage;
    for (const auto& d : selection.distributions) {
      if (d.core) continue;
      PlanStep s;
      s.step = ++step;
      s.stage = stage;
      s.id = index.name + "-" + d.normalized;
      s.job = role + "_plugins";
      s.index = index;
      s.environment = environment_for(index, d);
      s.distribution = d.normalized;
      s.directory = d.directory;
      s.needs = previous;
      plugin_ids.push_back(s.id);
      steps.push_back(std::move(s));
    }
    ++stage;
    for (const auto& d : selection.distributions) {
      if (!d.core) continue;
      PlanStep s;
      s.step = ++step;
      s.stage = stage;
      s.id = index.name + "-" + d.normalized;
      s.job = role + "_core";
      s.index = index;
      s.environment = environment_for(index, d);
      s.distribution = d.normalized;
      s.core = true;
      s.directory = d.directory;
      s.needs = any_plugin ? plugin_ids : previous;
      previous = {s.id};
      steps.push_back(std::move(s));
    }
  }
  return steps;
}

}  // namespace cuwheel::release
