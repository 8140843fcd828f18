// See policy_file.h.
#include "base/policy_file.h"

#include "base/toml_safe.h"
#include "base/suggest.h"

#include <filesystem>

#include "cuwheel/base/fileio.h"

namespace fs = std::filesystem;

namespace cuwheel::policyfile {

namespace {

// Whether the TOML file at `file` holds the table at `keys` (dotted path;
// empty = the file itself).
bool holds(const fs::path& file, std::string_view keys) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) return false;
  if (keys.empty()) return true;
  // Over the 16 MiB a policy may have: it counts, so that loading it says
  // so, instead of the command running on the built-in policy as if there
  // were none (docs/limits.md).
  if (auto size = fs::file_size(file, ec); !ec && size > kMaxPolicyBytes) return true;
  auto text = read_whole_file(file.string(), kMaxPolicyBytes);
  if (!text) return false;
  auto parsed = tomlsafe::parse(*text, file.string());
  if (!parsed) return text->find(keys) != std::string::npos;
  const toml::table* t = &*parsed;
  size_t start = 0;
  while (t && start <= keys.size()) {
    size_t dot = keys.find('.', start);
    std::string_view key = keys.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    const toml::node* n = t->get(key);
    if (!n) return false;
    if (dot == std::string_view::npos) return true;
    t = n->as_table();
    start = dot + 1;
  }
  return false;
}

}  // namespace

std::string find(const std::string& start, std::string_view section) {
  std::error_code ec;
  fs::path dir = fs::absolute(start, ec).lexically_normal();
  if (ec) return "";
  const std::string in_pyproject = "tool.cuwheel" + (section.empty() ? "" : "." + std::string(section));
  while (true) {
    fs::path c = dir / "cuwheel.toml";
    if (holds(c, section)) return c.string();
    fs::path py = dir / "pyproject.toml";
    if (holds(py, in_pyproject)) return py.string();
    if (!dir.has_parent_path() || dir.parent_path() == dir) break;
    dir = dir.parent_path();
  }
  return "";
}

std::string near_miss(const std::string& start, std::string_view section) {
  if (section.empty()) return "";
  std::error_code ec;
  fs::path dir = fs::absolute(start, ec).lexically_normal();
  if (ec) return "";
  // The table names of `t` that are a near misspelling of `section`.
  auto misspelt = [section](const toml::table& t) -> std::string {
    for (const auto& [k, v] : t)
      if (v.is_table() && suggest::nearest(k.str(), {section}) == section) return std::string(k.str());
    return "";
  };
  while (true) {
    for (const char* name : {"cuwheel.toml", "pyproject.toml"}) {
      fs::path file = dir / name;
      if (!fs::is_regular_file(file, ec)) continue;
      auto text = read_whole_file(file.string(), kMaxPolicyBytes);
      if (!text) continue;
      auto parsed = tomlsafe::parse(*text, file.string());
      if (!parsed) continue;
      const bool pyproject = std::string_view(name) == "pyproject.toml";
      const toml::table* t = &*parsed;
      if (pyproject) {
        const auto* tool = t->get_as<toml::table>("tool");
        t = tool ? tool->get_as<toml::table>("cuwheel") : nullptr;
        if (!t) continue;
      }
      std::string bad = misspelt(*t);
      if (bad.empty()) continue;
      const std::string prefix = pyproject ? "tool.cuwheel." : "";
      return file.string() + " has [" + prefix + bad + "]: did you mean [" + prefix + std::string(section) + "]?";
    }
    if (!dir.has_parent_path() || dir.parent_path() == dir) break;
    dir = dir.parent_path();
  }
  return "";
}

}  // namespace cuwheel::policyfile
