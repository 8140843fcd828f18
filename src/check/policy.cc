// Policy files. See include/cuwheel/check/check.h and docs/check.md.
// Header-only with exceptions off: errors come back as values (toml::parse_result),
// so nothing is thrown across the library boundary.
#include "base/toml_safe.h"
#include "base/policy_file.h"
#include "base/suggest.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <map>

#include "cuwheel/check/check.h"

namespace fs = std::filesystem;

namespace cuwheel::check {

std::optional<uint64_t> parse_size(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  size_t i = 0;
  bool dot = false;
  while (i < s.size() && (std::isdigit(static_cast<unsigned char>(s[i])) || (s[i] == '.' && !dot))) {
    if (s[i] == '.') dot = true;
    ++i;
  }
  if (i == 0) return std::nullopt;
  double v = 0;
  try {
    v = std::stod(std::string(s.substr(0, i)));
  } catch (...) {
    return std::nullopt;
  }
  std::string unit;
  for (char c : s.substr(i))
    if (!std::isspace(static_cast<unsigned char>(c))) unit.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  double mult = 1;
  if (unit.empty() || unit == "b") mult = 1;
  else if (unit == "k" || unit == "kb") mult = 1e3;
  else if (unit == "m" || unit == "mb") mult = 1e6;
  else if (unit == "g" || unit == "gb") mult = 1e9;
  else if (unit == "kib") mult = 1024.0;
  else if (unit == "mib") mult = 1024.0 * 1024;
  else if (unit == "gib") mult = 1024.0 * 1024 * 1024;
  else return std::nullopt;
  double bytes = v * mult;
  if (!(bytes >= 0) || bytes > 1.8e19) return std::nullopt;
  return static_cast<uint64_t>(std::llround(bytes));
}

namespace {

std::string where(const std::string& file, const toml::node& n) {
  auto src = n.source();
  return file + ":" + std::to_string(src.begin.line);
}

// Reads a list key: an array of strings or one comma-separated string.
// `at`, when given, receives "FILE:LINE" for each item (the line of its
// array element, or of the string), for the value checks that follow.
Status string_list(const std::string& file, const toml::table& t, std::string_view key, std::vector<std::string>& out,
                   std::vector<std::string>* at = nullptr) {
  const toml::node* n = t.get(key);
  if (!n) return Ok{};
  if (const auto* s = n->as_string()) {
    // "sm_75,sm_80" is accepted as well as an array.
    auto items = split_comma_list(s->get());
    if (!items) return Error(where(file, *n) + ": " + std::string(key) + ": " + items.error().message());
    for (auto& item : *items) {
      out.push_back(std::move(item));
      if (at) at->push_back(where(file, *n));
    }
    return Ok{};
  }
  const auto* arr = n->as_array();
  if (!arr) return Error(where(file, *n) + ": " + std::string(key) + " must be a list of strings");
  for (const auto& e : *arr) {
    const auto* s = e.as_string();
    if (!s) return Error(where(file, e) + ": " + std::string(key) + " must be a list of strings");
    if (s->get().empty()) return Error(where(file, e) + ": " + std::string(key) + ": an empty item is not allowed");
    out.push_back(s->get());
    if (at) at->push_back(where(file, e));
  }
  return Ok{};
}

}  // namespace

namespace {

// "sm_90", "sm_100a", "sm_120f" (prefix "sm_" or "compute_").
bool valid_arch(const std::string& a, const std::string& prefix) {
  if (a.rfind(prefix, 0) != 0) return false;
  size_t i = prefix.size(), digits = 0;
  while (i < a.size() && std::isdigit(static_cast<unsigned char>(a[i]))) ++i, ++digits;
  if (digits < 2 || digits > 3) return false;
  return i == a.size() || (i + 1 == a.size() && (a[i] == 'a' || a[i] == 'f'));
}

// NVIDIA driver versions are MAJOR.MINOR[.PATCH] in decimal: 535.104.05,
// 580.65.06, 570.26 (the "Driver Version" of nvidia-smi, and the minimum
// versions of the CUDA Toolkit Release Notes, Table 3). MAJOR has no
// leading zero and is not 0; MINOR and PATCH are as the release writes
// them (05, 104). Every part is at most 5 digits, so comparing never
// overflows.
bool valid_driver(const std::string& d) {
  std::vector<std::string> parts;
  size_t i = 0;
  while (true) {
    size_t j = d.find('.', i);
    parts.push_back(d.substr(i, j == std::string::npos ? std::string::npos : j - i));
    if (j == std::string::npos) break;
    i = j + 1;
  }
  if (parts.size() < 2 || parts.size() > 3) return false;
  for (const auto& p : parts) {
    if (p.empty() || p.size() > 5) return false;
    for (char c : p)
      if (c < '0' || c > '9') return false;
  }
  return parts[0][0] != '0';
}

// An entry point the wheel must declare: GROUP:NAME, or NAME alone (any
// group). Neither part is empty and neither holds a blank, '=' or a second
// ':' (entry_points.txt is an INI file of "name = object" lines in
// "[group]" sections: PyPA "Entry points specification").
bool valid_entry_point(const std::string& ep) {
  if (ep.empty() || ep.find_first_of(" \t=") != std::string::npos) return false;
  size_t colon = ep.find(':');
  if (colon == std::string::npos) return true;
  return colon != 0 && colon + 1 != ep.size() && ep.find(':', colon + 1) == std::string::npos;
}

// A distribution name as PEP 508 "Names" allows: ASCII letters and digits,
// with '.', '-' and '_' inside, starting and ending with a letter or digit.
bool valid_dist_name(const std::string& d) {
  if (d.empty()) return false;
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); };
  if (!alnum(d.front()) || !alnum(d.back())) return false;
  for (char c : d)
    if (!alnum(c) && c != '.' && c != '-' && c != '_') return false;
  return true;
}

// Where a value came from: "--sass" for a flag, "FILE:LINE: sass" for a
// policy file (the line of the item when known).
using Locate = std::function<std::string(std::string_view key, size_t item)>;

namespace {
// A value quoted in a message: escaped, at most 64 bytes of it.
std::string quote_value(std::string_view v) {
  if (v.size() <= 64) return "\"" + printable(v) + "\"";
  return "\"" + printable(v.substr(0, 64)) + "\"... (" + std::to_string(v.size()) + " bytes)";
}
}  // namespace

Status validate_values(const Policy& p, const Locate& at) {
  for (size_t i = 0; i < p.sass.size(); ++i)
    if (!valid_arch(p.sass[i], "sm_"))
      return Error(at("sass", i) + ": " + quote_value(p.sass[i]) + " is not an architecture such as sm_80, sm_90a or sm_100f");
  for (size_t i = 0; i < p.gpus.size(); ++i) {
    const std::string& a = p.gpus[i];
    if (!valid_arch(a, "sm_") || a.back() == 'a' || a.back() == 'f')
      return Error(at("gpus", i) + ": " + quote_value(a) + " is not a GPU such as sm_80 or sm_120");
  }
  if (p.ptx_mode == Policy::PtxMode::list) {
    if (p.ptx.empty()) return Error(at("ptx", 0) + ": give newest, none, or a list of compute_NN");
    for (size_t i = 0; i < p.ptx.size(); ++i)
      if (!valid_arch(p.ptx[i], "compute_"))
        return Error(at("ptx", i) + ": " + quote_value(p.ptx[i]) + " is not newest, none or an architecture such as compute_90");
  }
  if (p.min_driver && !valid_driver(*p.min_driver))
    return Error(at("min-driver", 0) + ": " + quote_value(*p.min_driver) + " is not an NVIDIA driver version MAJOR.MINOR[.PATCH] such as 580.65.06 or 570.26");
  for (size_t i = 0; i < p.entry_points.size(); ++i)
    if (!valid_entry_point(p.entry_points[i]))
      return Error(at("entry-points", i) + ": " + quote_value(p.entry_points[i]) + " must be GROUP:NAME or NAME");
  size_t i = 0;
  for (const auto& [dist, how] : p.pins) {
    if (!valid_dist_name(dist))
      return Error(at("pin", i) + ": " + quote_value(dist) + " is not a distribution name (PEP 508)");
    if (how != "exact") return Error(at("pin", i) + ": " + dist + " must be \"exact\"");
    ++i;
  }
  return Ok{};
}

}  // namespace

Expected<std::vector<std::string>> split_comma_list(std::string_view text) {
  std::vector<std::string> out;
  size_t i = 0, n = 0;
  while (true) {
    size_t j = text.find(',', i);
    std::string_view item = text.substr(i, j == std::string_view::npos ? std::string_view::npos : j - i);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    ++n;
    if (item.empty())
      return Error("item " + std::to_string(n) + " of \"" + std::string(text) + "\" is empty");
    out.emplace_back(item);
    if (j == std::string_view::npos) break;
    i = j + 1;
  }
  return out;
}

Status validate_policy(const Policy& p) {
  return validate_values(p, [](std::string_view key, size_t) {
    // The flag spellings of keys whose flag is singular.
    if (key == "entry-points") return std::string("--entry-point");
    if (key == "license-files") return std::string("--license-file");
    return "--" + std::string(key);
  });
}

Expected<Policy> load_policy(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return Error(path + ": not a policy file (missing, or not a regular file)");
  if (auto size = fs::file_size(path, ec); !ec && size > policyfile::kMaxPolicyBytes)
    return Error(path + ": " + std::to_string(size) + " bytes; a policy file is at most 16 MiB (docs/limits.md)");
  auto parsed = tomlsafe::parse_file(path);
  if (!parsed) return parsed.error();
  const toml::table& root = *parsed;
  const toml::table* t = nullptr;
  if (const auto* tool = root.get_as<toml::table>("tool")) t = tool->get_as<toml::table>("cuwheel");
  const bool pyproject = fs::path(path).filename() == "pyproject.toml";
  if (!t) {
    if (pyproject) return Error(path + ": no [tool.cuwheel] table");
    t = &root;
  } else if (!pyproject) {
    // A cuwheel.toml holds its keys in one place: at the top level or in
    // [tool.cuwheel], never both (one would silently win over the other).
    // The [matrix] and [release] tables of the other commands may stand
    // beside it (they are read from the top level of a cuwheel.toml).
    for (const auto& [k, v] : root)
      if (k.str() != "tool" && k.str() != "matrix" && k.str() != "release")
        return Error(where(path, v) + ": \"" + std::string(k.str()) + "\" is at the top level, but this file also has " +
                     "a [tool.cuwheel] table (line " + std::to_string(t->source().begin.line) +
                     "); keep every key in one place");
  }
  Policy p;
  p.source = path;
  // "FILE:LINE" of each list item, for the value checks at the end.
  std::map<std::string, std::vector<std::string>, std::less<>> at;
  static const std::vector<std::string_view> kKeys = {
      "cuda-major", "sass", "sass-exact", "ptx", "gpus", "min-driver", "max-size", "max-installed-size", "exports",
      "license-files", "pin", "entry-points", "severity", "select", "ignore", "tool",
      // tables of other commands (docs/matrix.md, docs/release.md, docs/repair.md)
      "matrix", "release", "repair"};
  for (const auto& [k, v] : *t) {
    if (std::find(kKeys.begin(), kKeys.end(), k.str()) == kKeys.end())
      return Error(where(path, v) + ": unknown key \"" + std::string(k.str()) + "\"" +
                   suggest::did_you_mean(k.str(), kKeys));
  }
  if (const auto* n = t->get("cuda-major")) {
    // An integer, as --cuda-major takes a decimal number: 13.0 is a float.
    const auto* v = n->as_integer();
    if (!v || (v->get() != 12 && v->get() != 13))
      return Error(where(path, *n) + ": cuda-major must be 12 or 13" + (n->is_floating_point() ? " (an integer, not a float)" : ""));
    p.cuda_major = static_cast<int>(v->get());
  }
  if (auto st = string_list(path, *t, "sass", p.sass, &at["sass"]); !st) return st.error();
  if (const auto* n = t->get("repair")) {
    // [tool.cuwheel.repair]: search-path = "keep" | "rpath" | "runpath",
    // exclude = ["libfoo.so.*", ...] (docs/repair.md).
    const auto* r = n->as_table();
    if (!r) return Error(where(path, *n) + ": repair must be a table ([tool.cuwheel.repair])");
    static const std::vector<std::string_view> kRepairKeys = {"search-path", "exclude"};
    for (const auto& [k, v] : *r)
      if (std::find(kRepairKeys.begin(), kRepairKeys.end(), k.str()) == kRepairKeys.end())
        return Error(where(path, v) + ": unknown key \"repair." + std::string(k.str()) + "\"" +
                     suggest::did_you_mean(k.str(), kRepairKeys));
    if (const auto* sp = r->get("search-path")) {
      auto v = sp->value<std::string>();
      if (!v || (*v != "keep" && *v != "rpath" && *v != "runpath"))
        return Error(where(path, *sp) + ": repair.search-path must be \"keep\", \"rpath\" or \"runpath\"");
      p.repair_search_path = *v;
    }
    if (auto st = string_list(path, *r, "exclude", p.repair_exclude); !st) return st.error();
  }
  if (const auto* n = t->get("sass-exact")) {
    auto v = n->value<bool>();
    if (!v) return Error(where(path, *n) + ": sass-exact must be true or false");
    p.sass_exact = *v;
  }
  if (const auto* n = t->get("ptx")) {
    if (const auto* s = n->as_string(); s && (s->get() == "newest" || s->get() == "none")) {
      p.ptx_mode = s->get() == "newest" ? Policy::PtxMode::newest : Policy::PtxMode::none;
    } else {
      if (auto st = string_list(path, *t, "ptx", p.ptx, &at["ptx"]); !st) return st.error();
      p.ptx_mode = Policy::PtxMode::list;
    }
  }
  if (auto st = string_list(path, *t, "gpus", p.gpus, &at["gpus"]); !st) return st.error();
  if (const auto* n = t->get("min-driver")) {
    auto v = n->value<std::string>();
    if (!v) return Error(where(path, *n) + ": min-driver must be a string such as \"570.26\"");
    p.min_driver = *v;
    at["min-driver"].push_back(where(path, *n));
  }
  for (const char* key : {"max-size", "max-installed-size"}) {
    const auto* n = t->get(key);
    if (!n) continue;
    // An integer number of bytes, or a string parse_size() reads (as the
    // flag); a TOML float (1e3, 2.5) is neither.
    std::optional<uint64_t> bytes;
    if (const auto* i = n->as_integer(); i && i->get() >= 0) bytes = static_cast<uint64_t>(i->get());
    else if (const auto* s = n->as_string()) bytes = parse_size(s->get());
    if (!bytes)
      return Error(where(path, *n) + ": " + key + " must be a size such as \"200MB\" or a whole number of bytes" +
                   (n->is_floating_point() ? " (not a float)" : ""));
    (std::string(key) == "max-size" ? p.max_size : p.max_installed_size) = bytes;
  }
  if (auto st = string_list(path, *t, "exports", p.exports); !st) return st.error();
  if (auto st = string_list(path, *t, "license-files", p.license_files); !st) return st.error();
  if (auto st = string_list(path, *t, "entry-points", p.entry_points, &at["entry-points"]); !st) return st.error();
  if (auto st = string_list(path, *t, "select", p.select, &at["select"]); !st) return st.error();
  if (auto st = string_list(path, *t, "ignore", p.ignore, &at["ignore"]); !st) return st.error();
  if (const auto* n = t->get("pin")) {
    const auto* pt = n->as_table();
    if (!pt) return Error(where(path, *n) + ": pin must be a table such as { mycore = \"exact\" }");
    for (const auto& [k, v] : *pt) {
      auto s = v.value<std::string>();
      if (!s || *s != "exact") return Error(where(path, v) + ": pin." + std::string(k.str()) + " must be \"exact\"");
      p.pins[std::string(k.str())] = *s;
      at["pin"].push_back(where(path, v));  // a TOML table iterates in key order, as the map
    }
  }
  if (const auto* n = t->get("severity")) {
    const auto* st = n->as_table();
    if (!st) return Error(where(path, *n) + ": severity must be a table of rule = \"error\"|\"warning\"|\"off\"");
    for (const auto& [k, v] : *st) {
      auto s = v.value<std::string>();
      auto sev = s ? parse_severity(*s) : std::nullopt;
      if (!sev) return Error(where(path, v) + ": severity." + std::string(k.str()) + " must be error, warning, note or off");
      if (!find_rule(k.str())) {
        std::string hint = suggest_rule(k.str());
        return Error(where(path, v) + ": unknown rule \"" + std::string(k.str()) + "\"" +
                     (hint.empty() ? "" : " (did you mean \"" + hint + "\"?)"));
      }
      p.severity[std::string(find_rule(k.str())->name)] = *sev;
    }
  }
  // Each value error names the file, the line and the key (as a TOML
  // syntax error does), e.g. "cuwheel.toml:3: sass: \"sm_8x\" is not ...".
  const auto locate = [&at, &path](std::string_view key, size_t item) {
    auto it = at.find(key);
    if (it == at.end() || it->second.empty()) return path + ": " + std::string(key);
    return it->second[std::min(item, it->second.size() - 1)] + ": " + std::string(key);
  };
  if (auto st = validate_values(p, locate); !st) return st.error();
  for (const char* key : {"select", "ignore"}) {
    auto& list = std::string_view(key) == "select" ? p.select : p.ignore;
    for (size_t i = 0; i < list.size(); ++i) {
      std::string& r = list[i];
      const RuleInfo* ri = find_rule(r);
      if (!ri) {
        std::string hint = suggest_rule(r);
        return Error(locate(key, i) + ": unknown rule \"" + r + "\"" +
                     (hint.empty() ? "" : " (did you mean \"" + hint + "\"?)"));
      }
      r = std::string(ri->name);
    }
  }
  return p;
}

std::string find_policy_file(const std::string& start) { return policyfile::find(start, ""); }

}  // namespace cuwheel::check
