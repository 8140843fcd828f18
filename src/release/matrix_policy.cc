// The matrix policy file. See include/cuwheel/release/matrix.h and docs/matrix.md.
// Conventions follow the check policy (src/check/policy.cc): "file:line:"
// in every error, unknown keys rejected with a did-you-mean, toml++ used
// header-only with exceptions off.
#include "base/toml_safe.h"
#include "base/policy_file.h"
#include "base/suggest.h"

#include <fnmatch.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "cuwheel/base/fileio.h"
#include "cuwheel/release/matrix.h"

namespace fs = std::filesystem;

namespace cuwheel::matrix {

namespace {

std::string where(const std::string& file, const toml::node& n) {
  return file + ":" + std::to_string(n.source().begin.line);
}

Status check_keys(const std::string& file, const toml::table& t, std::string_view table_name,
                  std::initializer_list<std::string_view> known) {
  for (const auto& [k, v] : t) {
    if (std::find(known.begin(), known.end(), k.str()) != known.end()) continue;
    return Error(where(file, v) + ": unknown key \"" + std::string(k.str()) + "\" in " + std::string(table_name) +
                 suggest::did_you_mean(k.str(), known));
  }
  return Ok{};
}

Expected<std::string> get_string(const std::string& file, const toml::node& n, std::string_view what) {
  const auto* s = n.as_string();
  if (!s) return Error(where(file, n) + ": " + std::string(what) + " must be a string");
  return s->get();
}

Expected<std::vector<std::string>> string_list(const std::string& file, const toml::node& n, std::string_view what) {
  std::vector<std::string> out;
  const auto* arr = n.as_array();
  if (!arr) return Error(where(file, n) + ": " + std::string(what) + " must be a list of strings");
  for (const auto& e : *arr) {
    auto s = get_string(file, e, what);
    if (!s) return s.error();
    out.push_back(*s);
  }
  return out;
}

bool valid_python(const std::string& p) {
  // X.Y with an optional "t" (free-threaded build).
  size_t dot = p.find('.');
  if (dot == std::string::npos || dot == 0) return false;
  for (size_t i = 0; i < dot; ++i)
    if (!std::isdigit(static_cast<unsigned char>(p[i]))) return false;
  size_t i = dot + 1, digits = 0;
  while (i < p.size() && std::isdigit(static_cast<unsigned char>(p[i]))) ++i, ++digits;
  return digits > 0 && (i == p.size() || (i + 1 == p.size() && p[i] == 't'));
}

Status check_train(const std::string& w, const std::string& t) {
  if (classify_build(t).kind != Build::Kind::kCuda)
    return Error(w + ": train \"" + t + "\" is not a CUDA train such as cu126 or cu130");
  return Ok{};
}

Expected<Combination> combination(const std::string& file, const toml::node& n, std::string_view what,
                                  bool all_required) {
  const auto* t = n.as_table();
  if (!t) return Error(where(file, n) + ": " + std::string(what) + " must be a table such as { arch = \"x86_64\", train = \"cu130\", python = \"3.12\" }");
  if (auto st = check_keys(file, *t, what, {"arch", "train", "python"}); !st) return st.error();
  Combination c;
  for (auto [key, dst] : {std::pair{"arch", &c.arch}, {"train", &c.train}, {"python", &c.python}}) {
    const auto* v = t->get(key);
    if (!v) {
      if (all_required) return Error(where(file, n) + ": " + std::string(what) + " needs " + key);
      continue;
    }
    auto s = get_string(file, *v, std::string(what) + "." + key);
    if (!s) return s.error();
    *dst = *s;
  }
  if (!c.train.empty())
    if (auto st = check_train(where(file, n), c.train); !st) return st.error();
  if (!c.python.empty() && !valid_python(c.python))
    return Error(where(file, n) + ": python \"" + c.python + "\" is not a version such as 3.12 or 3.13t");
  return c;
}

std::string join_names(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& x : v) out += (out.empty() ? "" : ", ") + x;
  return out;
}

// An expected combination must be one the policy builds: an architecture
// with trains, one of its trains, an allowed Python that is not excluded.
// Otherwise missing-combination would fire, or never fire, for a row the
// policy itself drops. Checked against what this policy declares (trains and
// python given by flags replace them later and are not known here).
Status check_expected(const std::string& file, const toml::node& n, const Combination& c, const Policy& p) {
  std::string head = where(file, n) + ": expect " + c.to_string() + ": ";
  for (const auto& k : p.empty)
    if (k.arch == c.arch) return Error(head + c.arch + " is declared empty ([[matrix.empty]]): nothing is built for it");
  if (!p.trains.empty()) {
    auto it = std::find_if(p.trains.begin(), p.trains.end(), [&](const auto& a) { return a.first == c.arch; });
    if (it == p.trains.end()) {
      std::vector<std::string> archs;
      for (const auto& a : p.trains) archs.push_back(a.first);
      return Error(head + "the policy builds no trains for " + c.arch + " (trains are given for " + join_names(archs) +
                   ")");
    }
    if (std::find(it->second.begin(), it->second.end(), c.train) == it->second.end())
      return Error(head + "train " + c.train + " is not built for " + c.arch + " (trains." + c.arch + " = " +
                   join_names(it->second) + ")");
  }
  for (const auto& e : p.exclude_python)
    if (fnmatch(e.python.c_str(), c.python.c_str(), 0) == 0)
      return Error(head + "python " + c.python + " is excluded (exclude-python \"" + e.python + "\": " + e.reason + ")");
  if (!p.python.empty() && std::find(p.python.begin(), p.python.end(), c.python) == p.python.end())
    return Error(head + "python " + c.python + " is not in the allowlist (python = " + join_names(p.python) + ")");
  return Ok{};
}

Expected<Policy> parse_table(const toml::table& t, const std::string& file) {
  Policy p;
  p.source = file;
  if (auto st = check_keys(file, t, "[matrix]",
                           {"trains", "python", "exclude-python", "empty", "expect", "representative", "cpu", "fields",
                            "generator"});
      !st)
    return st.error();
  if (const auto* n = t.get("trains")) {
    const auto* tt = n->as_table();
    if (!tt) return Error(where(file, *n) + ": trains must be a table such as { x86_64 = [\"cu126\", \"cu130\"] }");
    for (const auto& [k, v] : *tt) {
      auto list = string_list(file, v, "trains." + std::string(k.str()));
      if (!list) return list.error();
      if (list->empty())
        return Error(where(file, v) + ": trains." + std::string(k.str()) +
                     " is empty: declare a deliberately empty architecture with [[matrix.empty]] and its reason");
      for (const auto& tr : *list)
        if (auto st = check_train(where(file, v), tr); !st) return st.error();
      p.trains.emplace_back(std::string(k.str()), std::move(*list));
    }
  }
  if (const auto* n = t.get("python")) {
    auto list = string_list(file, *n, "python");
    if (!list) return list.error();
    for (const auto& py : *list)
      if (!valid_python(py)) return Error(where(file, *n) + ": python \"" + py + "\" is not a version such as 3.12 or 3.13t");
    p.python = std::move(*list);
  }
  if (const auto* n = t.get("exclude-python")) {
    const auto* arr = n->as_array();
    if (!arr) return Error(where(file, *n) + ": exclude-python must be a list of { python = \"3.14\", reason = \"...\" }");
    for (const auto& e : *arr) {
      const auto* et = e.as_table();
      if (!et) return Error(where(file, e) + ": exclude-python entries are tables { python = \"3.14\", reason = \"...\" }");
      if (auto st = check_keys(file, *et, "exclude-python", {"python", "reason"}); !st) return st.error();
      const auto* py = et->get("python");
      const auto* rs = et->get("reason");
      if (!py || !rs) return Error(where(file, e) + ": exclude-python entries need python and reason");
      auto pys = get_string(file, *py, "python");
      if (!pys) return pys.error();
      auto rss = get_string(file, *rs, "reason");
      if (!rss) return rss.error();
      if (rss->empty()) return Error(where(file, *rs) + ": reason must not be empty");
      p.exclude_python.push_back({*pys, *rss});
    }
  }
  if (const auto* n = t.get("empty")) {
    const auto* arr = n->as_array();
    if (!arr) return Error(where(file, *n) + ": empty must be an array of tables ([[matrix.empty]])");
    for (const auto& e : *arr) {
      const auto* et = e.as_table();
      if (!et) return Error(where(file, e) + ": [[matrix.empty]] entries are tables");
      if (auto st = check_keys(file, *et, "[[matrix.empty]]", {"arch", "reason", "match"}); !st) return st.error();
      EmptyKind k;
      const auto* a = et->get("arch");
      const auto* r = et->get("reason");
      if (!a) return Error(where(file, e) + ": [[matrix.empty]] needs arch (a name such as \"jetson\")");
      if (!r) return Error(where(file, e) + ": [[matrix.empty]] needs reason (why these rows are deliberately empty)");
      auto as = get_string(file, *a, "arch");
      if (!as) return as.error();
      auto rs = get_string(file, *r, "reason");
      if (!rs) return rs.error();
      if (as->empty() || rs->empty()) return Error(where(file, e) + ": arch and reason must not be empty");
      k.arch = *as;
      k.reason = *rs;
      if (const auto* m = et->get("match")) {
        const auto* mt = m->as_table();
        if (!mt) return Error(where(file, *m) + ": match must be a table of row field = \"pattern\"");
        for (const auto& [mk, mv] : *mt) {
          auto s = get_string(file, mv, "match." + std::string(mk.str()));
          if (!s) return s.error();
          k.match[std::string(mk.str())] = *s;
        }
      }
      for (const auto& [arch, trains] : p.trains)
        if (arch == k.arch)
          return Error(where(file, e) + ": \"" + k.arch + "\" has trains and is declared empty; choose one");
      p.empty.push_back(std::move(k));
    }
  }
  if (const auto* n = t.get("expect")) {
    const auto* arr = n->as_array();
    if (!arr) return Error(where(file, *n) + ": expect must be a list of { arch, train, python } tables");
    std::vector<Combination> list;
    for (const auto& e : *arr) {
      auto c = combination(file, e, "expect", true);
      if (!c) return c.error();
      if (auto st = check_expected(file, e, *c, p); !st) return st.error();
      list.push_back(*c);
    }
    p.expect = std::move(list);
  }
  if (const auto* n = t.get("representative")) {
    auto c = combination(file, *n, "representative", false);
    if (!c) return c.error();
    p.representative = *c;
  }
  if (const auto* n = t.get("cpu")) {
    auto v = n->value<bool>();
    if (!v) return Error(where(file, *n) + ": cpu must be true or false");
    p.cpu = *v;
  }
  if (const auto* n = t.get("fields")) {
    const auto* ft = n->as_table();
    if (!ft) return Error(where(file, *n) + ": fields must be a table such as { desired_cuda = \"cuda_version\" }");
    for (const auto& [k, v] : *ft) {
      auto s = get_string(file, v, "fields." + std::string(k.str()));
      if (!s) return s.error();
      if (s->empty()) return Error(where(file, v) + ": fields." + std::string(k.str()) + " must not be empty");
      if (auto st = p.fields.set(k.str(), *s); !st) return Error(where(file, v) + ": " + st.error().message());
    }
  }
  if (const auto* n = t.get("generator")) {
    const auto* gt = n->as_table();
    if (!gt) return Error(where(file, *n) + ": generator must be a table such as { with-cuda = \"enable\" }");
    for (const auto& [k, v] : *gt) {
      auto s = get_string(file, v, "generator." + std::string(k.str()));
      if (!s) return s.error();
      p.generator.emplace_back(std::string(k.str()), *s);
    }
  }
  return p;
}

// toml++ 3.x asserts (and, built with NDEBUG, assumes) that a table header
// starts with a key character: "[{", "[=", "[ #" abort it or are undefined
// behaviour. Its whitespace test also reaches TOML_UNREACHABLE for some
// non-ASCII characters between tokens (U+FEFC after a dotted key). Both are
// refused here first, with the line number; strings and comments may hold
// any UTF-8.
// Headers are only recognised where toml++ looks for them: at the start of a
// statement, outside strings and multi-line arrays.
Status check_table_headers(std::string_view text, const std::string& name) {
  size_t i = 0, n = text.size();
  unsigned line = 1;
  int depth = 0;
  bool at_start = true;
  auto skip_line = [&] {
    while (i < n && text[i] != '\n') ++i;
  };
  while (i < n) {
    char c = text[i];
    if (c == '\n') {
      ++line;
      at_start = depth == 0;
      ++i;
      continue;
    }
    if (at_start && (c == ' ' || c == '\t' || c == '\r')) {
      ++i;
      continue;
    }
    if (at_start && c == '[') {
      size_t j = i + 1;
      if (j < n && text[j] == '[') ++j;
      while (j < n && (text[j] == ' ' || text[j] == '\t')) ++j;
      unsigned char k = j < n ? static_cast<unsigned char>(text[j]) : 0;
      if (!(std::isalnum(k) || k == '_' || k == '-' || k == '"' || k == '\''))
        return Error(name + ":" + std::to_string(line) + ": a table header must start with a key, e.g. [matrix]");
      // The rest of the header line: non-ASCII only inside quoted keys.
      char quote = 0;
      for (i = j; i < n && text[i] != '\n'; ++i) {
        char h = text[i];
        if (quote) {
          if (h == quote) quote = 0;
          else if (quote == '"' && h == '\\' && i + 1 < n && text[i + 1] != '\n') ++i;
        } else if (h == '"' || h == '\'') {
          quote = h;
        } else if (h == '#') {
          skip_line();
          break;
        } else if (static_cast<unsigned char>(h) >= 0x80) {
          return Error(name + ":" + std::to_string(line) + ": a non-ASCII character outside a string or comment");
        }
      }
      at_start = false;
      continue;
    }
    at_start = false;
    if (c == '#') {
      skip_line();
      continue;
    }
    if (c == '"' || c == '\'') {
      bool multi = i + 2 < n && text[i + 1] == c && text[i + 2] == c;
      if (multi) {
        std::string_view close = c == '"' ? "\"\"\"" : "'''";
        size_t end = text.find(close, i + 3);
        size_t stop = end == std::string_view::npos ? n : end + 3;
        for (size_t k2 = i; k2 < stop; ++k2) line += text[k2] == '\n';
        i = stop;
        continue;
      }
      ++i;
      while (i < n && text[i] != c && text[i] != '\n') {
        if (c == '"' && text[i] == '\\' && i + 1 < n && text[i + 1] != '\n') ++i;
        ++i;
      }
      if (i < n && text[i] == c) ++i;
      continue;
    }
    if (static_cast<unsigned char>(c) >= 0x80)
      return Error(name + ":" + std::to_string(line) + ": a non-ASCII character outside a string or comment");
    // A missing value ("x = ]", "[}", "[1,}") is invalid TOML that toml++
    // asserts on (parse_value: !is_value_terminator); refuse it here.
    if (c == '=' || c == '[' || c == ',') {
      size_t j = i + 1;
      std::string_view ws = c == '=' ? " \t" : " \t\r\n";
      while (j < n && ws.find(text[j]) != std::string_view::npos) ++j;
      std::string_view bad = c == '=' ? ",]}#\r\n" : ",}";
      if (j >= n ? c == '=' : bad.find(text[j]) != std::string_view::npos)
        return Error(name + ":" + std::to_string(line) + ": a value is missing");
    }
    if (c == '[' || c == '{') ++depth;
    if ((c == ']' || c == '}') && depth > 0) --depth;
    ++i;
  }
  return Ok{};
}

}  // namespace

Expected<Policy> parse_policy(std::string_view text, const std::string& name) {
  if (auto st = check_table_headers(text, name); !st) return st.error();
  auto parsed = tomlsafe::parse(text, name);
  if (!parsed) return parsed.error();
  const toml::table& root = *parsed;
  const toml::table* t = nullptr;
  if (const auto* tool = root.get_as<toml::table>("tool"))
    if (const auto* cw = tool->get_as<toml::table>("cuwheel")) t = cw->get_as<toml::table>("matrix");
  if (!t) t = root.get_as<toml::table>("matrix");
  if (!t) {
    std::string fn = fs::path(name).filename().string();
    if (fn == "pyproject.toml") return Error(name + ": no [tool.cuwheel.matrix] table");
    if (fn == "cuwheel.toml") return Error(name + ": no [matrix] table");
    t = &root;
  }
  return parse_table(*t, name);
}

Expected<Policy> load_policy(const std::string& path) {
  auto text = read_file_or_pipe(path, size_t{16} << 20);
  if (!text) return text.error();
  return parse_policy(*text, path);
}

std::string find_policy_file(const std::string& start) { return policyfile::find(start, "matrix"); }

}  // namespace cuwheel::matrix
