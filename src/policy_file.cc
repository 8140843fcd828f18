// See policy_file.h.
#include "policy_file.h"

#include "toml_safe.h"

#include <filesystem>

#include "cuwheel/fileio.h"

namespace fs = std::filesystem;

namespace cuwheel::policyfile {

namespace {

// Whether the TOML file at `file` holds the table at `keys` (dotted path;
// empty = the file itself).
bool holds(const fs::path& file, std::string_view keys) {
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) return false;
  if (keys.empty()) return true;
  auto text = read_whole_file(file.string(), size_t{16} << 20);
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

}  // namespace cuwheel::policyfile
