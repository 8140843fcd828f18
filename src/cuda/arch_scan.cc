// Architecture lists in build files (include/cuwheel/cuda/arch_scan.h).
#include "cuwheel/cuda/arch_scan.h"

#include <algorithm>
#include <array>

namespace cuwheel::arch {

namespace {

constexpr size_t kMaxLine = 64 * 1024;

bool ident_char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
}
bool blank(char c) { return c == ' ' || c == '\t'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && blank(s.back())) s.remove_suffix(1);
  return s;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// A value that depends on the build: a shell/CMake variable, an autoconf or
// configure_file @VAR@, a generator expression.
bool uses_variable(std::string_view v) {
  return v.find('$') != std::string_view::npos || v.find('@') != std::string_view::npos ||
         v.find('<') != std::string_view::npos;
}

// How the value follows the name.
enum class Context { kNone, kAssign, kColon, kSetCall, kProperty, kPropertiesPair };

// The text before the name (trimmed) says whether this is a CMake call whose
// arguments are the value: set(NAME ...), set(ENV{NAME} ...),
// set_property(... PROPERTY NAME ...), set_target_properties(... PROPERTIES
// ... NAME value ...).
Context call_context(std::string_view before) {
  std::string_view b = trim(before);
  if (ends_with(b, "ENV{")) b = trim(b.substr(0, b.size() - 4));
  if (ends_with(b, "set(") || ends_with(b, "SET(")) return Context::kSetCall;
  if (ends_with(b, " PROPERTY") || ends_with(b, "\tPROPERTY")) return Context::kProperty;
  if (b.find("PROPERTIES") != std::string_view::npos) return Context::kPropertiesPair;
  return Context::kNone;
}

struct Cut {
  size_t begin = 0;  // offset in the line of the value's first character
  std::string value;
  bool ok = false;
};

// A quoted string starting at line[p] (a quote character); not ok when it
// does not close on the line.
Cut quoted_at(std::string_view line, size_t p) {
  Cut c;
  char q = line[p];
  size_t end = line.find(q, p + 1);
  if (end == std::string_view::npos) return c;
  c.begin = p + 1;
  c.value = std::string(line.substr(p + 1, end - p - 1));
  c.ok = true;
  return c;
}

// The arguments of a CMake call from line[p] to its ')', words joined with
// ';' (CMake's list), stopping at set()'s keywords. `one`: only the first
// word (a PROPERTIES name/value pair).
Cut cmake_args(std::string_view line, size_t p, bool one) {
  Cut c;
  std::string joined;
  bool first = true;
  while (p < line.size()) {
    while (p < line.size() && blank(line[p])) ++p;
    if (p >= line.size() || line[p] == ')' || line[p] == '#') break;
    std::string word;
    size_t start = p;
    if (line[p] == '"') {
      Cut q = quoted_at(line, p);
      if (!q.ok) return Cut{};
      word = q.value;
      start = q.begin;
      p = q.begin + q.value.size() + 1;
    } else {
      while (p < line.size() && !blank(line[p]) && line[p] != ')') ++p;
      word = std::string(line.substr(start, p - start));
    }
    if (!one && (word == "CACHE" || word == "PARENT_SCOPE" || word == "FORCE")) break;
    if (first) c.begin = start;
    if (!first) joined += ';';
    joined += word;
    first = false;
    if (one) break;
  }
  if (first) return c;
  c.value = std::move(joined);
  c.ok = true;
  return c;
}

// An unquoted value after '=' (shell, -D, make): one word.
Cut word_at(std::string_view line, size_t p) {
  Cut c;
  size_t start = p;
  while (p < line.size() && !blank(line[p]) && line[p] != '"' && line[p] != '\'' && line[p] != ')' &&
         line[p] != ',' && line[p] != '}')
    ++p;
  if (p == start) return c;
  c.begin = start;
  c.value = std::string(line.substr(start, p - start));
  c.ok = true;
  return c;
}

// An unquoted value after ':' (YAML, JSON): the rest of the line, up to a
// YAML comment or a JSON separator.
Cut rest_at(std::string_view line, size_t p) {
  Cut c;
  std::string_view rest = line.substr(p);
  size_t cut = rest.find(" #");
  if (cut != std::string_view::npos) rest = rest.substr(0, cut);
  cut = rest.find_first_of(",}");
  if (cut != std::string_view::npos) rest = rest.substr(0, cut);
  std::string_view v = trim(rest);
  if (v.empty()) return c;
  c.begin = p + static_cast<size_t>(v.data() - rest.data());
  c.value = std::string(v);
  c.ok = true;
  return c;
}

// The value of the name that ends at line[end], or !ok.
Cut value_after(std::string_view line, size_t name_begin, size_t end) {
  Context ctx = call_context(line.substr(0, name_begin));
  size_t p = end;
  // CMake's -DNAME:TYPE=value.
  if (p < line.size() && line[p] == ':') {
    size_t q = p + 1;
    while (q < line.size() && line[q] >= 'A' && line[q] <= 'Z') ++q;
    if (q > p + 1 && q < line.size() && line[q] == '=') p = q;
  }
  // Closing characters of the name's own quoting: "NAME", ['NAME'], ENV{NAME}.
  while (p < line.size() && (line[p] == '"' || line[p] == '\'' || line[p] == ']' || line[p] == '}')) ++p;
  size_t after_name = p;
  while (p < line.size() && blank(line[p])) ++p;
  if (p < line.size() && (line[p] == '?' || line[p] == '+') && p + 1 < line.size() && line[p + 1] == '=') ++p;
  if (p + 1 < line.size() && line[p] == ':' && line[p + 1] == '=') ++p;  // make's :=
  if (p < line.size() && line[p] == '=' && !(p + 1 < line.size() && line[p + 1] == '=')) {
    ctx = Context::kAssign;
    ++p;
  } else if (p < line.size() && line[p] == ':') {
    ctx = Context::kColon;
    ++p;
  } else if (ctx == Context::kNone || p == after_name) {
    // A CMake call needs blank space between the name and its arguments.
    return Cut{};
  }
  while (p < line.size() && blank(line[p])) ++p;
  if (p >= line.size()) return Cut{};
  switch (ctx) {
    case Context::kAssign:
      return (line[p] == '"' || line[p] == '\'') ? quoted_at(line, p) : word_at(line, p);
    case Context::kColon:
      return (line[p] == '"' || line[p] == '\'') ? quoted_at(line, p) : rest_at(line, p);
    case Context::kSetCall:
    case Context::kProperty:
      return cmake_args(line, p, false);
    case Context::kPropertiesPair:
      return cmake_args(line, p, true);
    case Context::kNone:
      break;
  }
  return Cut{};
}

struct Name {
  std::string_view text;
  Form form;
};
constexpr std::array<Name, 3> kNames = {{
    {"TORCH_CUDA_ARCH_LIST", Form::kTorch},
    {"CMAKE_CUDA_ARCHITECTURES", Form::kCmake},
    {"CUDA_ARCHITECTURES", Form::kCmake},
}};

void scan_names(std::string_view line, uint64_t lineno, std::vector<ArchSetting>& out) {
  for (const Name& n : kNames) {
    for (size_t at = line.find(n.text); at != std::string_view::npos; at = line.find(n.text, at + 1)) {
      size_t end = at + n.text.size();
      if (end < line.size() && ident_char(line[end])) continue;
      if (at > 0 && ident_char(line[at - 1])) {
        // -DCMAKE_CUDA_ARCHITECTURES: the 'D' of the flag, not a longer name.
        if (!(at >= 2 && line[at - 1] == 'D' && line[at - 2] == '-')) continue;
      }
      // A reference: $NAME, ${NAME}, $ENV{NAME}, %NAME%.
      if (at > 0 && (line[at - 1] == '$' || line[at - 1] == '%')) continue;
      if (at > 1 && line[at - 1] == '{' && (line[at - 2] == '$' || (at > 4 && line.substr(at - 5, 5) == "$ENV{")))
        continue;
      Cut c = value_after(line, at, end);
      if (!c.ok) continue;
      std::string_view v = trim(c.value);
      if (v.empty() || uses_variable(v)) continue;
      out.push_back({lineno, c.begin + 1, std::string(n.text), n.form, std::string(v)});
    }
  }
}

void scan_gencode(std::string_view line, uint64_t lineno, std::vector<ArchSetting>& out) {
  for (std::string_view flag : {std::string_view("--generate-code"), std::string_view("-gencode")}) {
    for (size_t at = line.find(flag); at != std::string_view::npos; at = line.find(flag, at + 1)) {
      if (flag == "-gencode" && at > 0 && line[at - 1] == '-') continue;  // part of --gencode spelling
      if (at > 0 && ident_char(line[at - 1])) continue;
      size_t p = at + flag.size();
      if (p < line.size() && ident_char(line[p])) continue;
      if (p < line.size() && line[p] == '=') ++p;
      else if (p < line.size() && blank(line[p])) {
        while (p < line.size() && blank(line[p])) ++p;
      } else {
        continue;
      }
      if (p >= line.size()) continue;
      Cut c;
      if (line[p] == '"' || line[p] == '\'') {
        c = quoted_at(line, p);
      } else {
        // arch=compute_90,code=[sm_90,compute_90]: up to a blank, quote or ')'.
        size_t e = p;
        while (e < line.size() && !blank(line[e]) && line[e] != '"' && line[e] != '\'' && line[e] != ')') ++e;
        c = Cut{p, std::string(line.substr(p, e - p)), e > p};
      }
      if (!c.ok) continue;
      std::string_view v = trim(c.value);
      if (v.empty() || uses_variable(v) || v.find("arch=") == std::string_view::npos) continue;
      out.push_back({lineno, c.begin + 1, "-gencode", Form::kGencode, "-gencode " + std::string(v)});
    }
  }
}

}  // namespace

std::vector<ArchSetting> scan_arch_settings(std::string_view text) {
  std::vector<ArchSetting> out;
  uint64_t lineno = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t nl = text.find('\n', pos);
    size_t end = nl == std::string_view::npos ? text.size() : nl;
    std::string_view line = text.substr(pos, end - pos);
    ++lineno;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    std::string_view t = trim(line);
    if (line.size() <= kMaxLine && !t.empty() && t.front() != '#') {
      size_t before = out.size();
      scan_names(line, lineno, out);
      scan_gencode(line, lineno, out);
      // Within a line, in order of the value's column.
      std::stable_sort(out.begin() + static_cast<std::ptrdiff_t>(before), out.end(),
                       [](const ArchSetting& a, const ArchSetting& b) { return a.column < b.column; });
    }
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  return out;
}

}  // namespace cuwheel::arch
