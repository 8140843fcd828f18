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

bool lower_ascii(char c) { return c >= 'a' && c <= 'z'; }
bool upper_ascii(char c) { return c >= 'A' && c <= 'Z'; }
bool digit_ascii(char c) { return c >= '0' && c <= '9'; }
bool alpha_ascii(char c) { return lower_ascii(c) || upper_ascii(c); }

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if ((a[i] | 0x20) != (b[i] | 0x20)) return false;
  return true;
}

// Splits on the list separators of every form: ';', ',', blanks.
std::vector<std::string_view> tokens(std::string_view v) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < v.size()) {
    while (i < v.size() && (v[i] == ';' || v[i] == ',' || blank(v[i]))) ++i;
    size_t b = i;
    while (i < v.size() && !(v[i] == ';' || v[i] == ',' || blank(v[i]))) ++i;
    if (i > b) out.push_back(v.substr(b, i - b));
  }
  return out;
}

// DIGITS[.DIGITS][letter][+WORD]: 8.0, 9.0a, 9.0+PTX, 9.0+ptx, 95 (the last
// two wrong, and meant as architectures all the same).
bool torch_like(std::string_view t) {
  size_t i = 0;
  while (i < t.size() && digit_ascii(t[i])) ++i;
  if (i == 0) return false;
  if (i < t.size() && t[i] == '.') {
    size_t d = ++i;
    while (i < t.size() && digit_ascii(t[i])) ++i;
    if (i == d) return false;
  }
  if (i < t.size() && alpha_ascii(t[i])) ++i;
  if (i < t.size() && t[i] == '+') {
    size_t w = ++i;
    while (i < t.size() && alpha_ascii(t[i])) ++i;
    if (i == w) return false;
  }
  return i == t.size();
}

// DIGITS[letter][-WORD]: 80, 90a, 75-real, 90-REAL.
bool cmake_like(std::string_view t) {
  size_t i = 0;
  while (i < t.size() && digit_ascii(t[i])) ++i;
  if (i == 0) return false;
  if (i < t.size() && alpha_ascii(t[i])) ++i;
  if (i < t.size() && t[i] == '-') {
    size_t w = ++i;
    while (i < t.size() && alpha_ascii(t[i])) ++i;
    if (i == w) return false;
  }
  return i == t.size();
}

// A capitalised word: a PyTorch family name (Ampere, Hopper) or All.
bool family_like(std::string_view t) {
  if (t.empty() || !upper_ascii(t[0])) return false;
  for (char c : t.substr(1))
    if (!lower_ascii(c)) return false;
  return true;
}

// CMake's false constants (`if()` documentation): CUDA_ARCHITECTURES set
// to one of them means "add no architecture flags".
bool cmake_false(std::string_view v) {
  for (std::string_view f : {"0", "OFF", "NO", "FALSE", "N", "IGNORE", "NOTFOUND", ""})
    if (iequals(v, f)) return true;
  return v.size() >= 9 && iequals(v.substr(v.size() - 9), "-NOTFOUND");
}

// prefix_DIGITS[letter]: sm_80, compute_90a, SM_80.
bool arch_name_like(std::string_view t) {
  size_t u = t.find('_');
  if (u == std::string_view::npos || u == 0) return false;
  for (char c : t.substr(0, u))
    if (!alpha_ascii(c)) return false;
  std::string_view n = t.substr(u + 1);
  size_t i = 0;
  while (i < n.size() && digit_ascii(n[i])) ++i;
  if (i == 0) return false;
  if (i < n.size() && alpha_ascii(n[i])) ++i;
  return i == n.size();
}

// arch=NAME,code=NAME[,NAME] or code=[NAME,...] (quotes already removed).
bool gencode_like(std::string_view v) {
  if (v.substr(0, 5) != "arch=") return false;
  size_t comma = v.find(",code=");
  if (comma == std::string_view::npos || !arch_name_like(v.substr(5, comma - 5))) return false;
  std::string_view code = v.substr(comma + 6);
  if (!code.empty() && code.front() == '[') {
    if (code.back() != ']') return false;
    code = code.substr(1, code.size() - 2);
  }
  auto ts = tokens(code);
  if (ts.empty()) return false;
  for (auto t : ts)
    if (!arch_name_like(t)) return false;
  return true;
}

// Whether `value` is written as a literal list of `form`, so that a parse
// error is the file's mistake and not a template, a placeholder, a command
// or prose the scanner cannot read: every token looks like an entry of the
// form (a named set such as native or Ampere included), or the value is
// skipped. This is what keeps the hook free of false reports: ("{}",
// "compute capability", "%s", get_archs(), "[^ ]+", "|", "OFF" are skipped).
bool literal_list(std::string_view value, Form form) {
  auto ts = tokens(value);
  if (ts.empty()) return false;
  for (auto t : ts) {
    switch (form) {
      // sm_80 in a torch or CMake list is a list written in the wrong
      // form, a mistake worth its report.
      case Form::kTorch:
        if (!torch_like(t) && !family_like(t) && !arch_name_like(t)) return false;
        break;
      case Form::kCmake:
        if (!cmake_like(t) && !arch_name_like(t) && !iequals(t, "native") && !iequals(t, "all") &&
            !iequals(t, "all-major"))
          return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

// Shell and CMake escapes inside a value: 80\;90 is 80;90, \"8.0\" is "8.0".
std::string without_escapes(std::string_view v) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) {
    if (v[i] == '\\' && i + 1 < v.size()) continue;
    out += v[i];
  }
  return out;
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

void scan_names(std::string_view line, size_t comment_at, uint64_t lineno, std::vector<ArchSetting>& out) {
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
      if (at >= comment_at) break;
      Cut c = value_after(line, at, end);
      if (!c.ok) continue;
      std::string unescaped = without_escapes(trim(c.value));
      std::string_view v = unescaped;
      if (v.empty() || uses_variable(v) || (n.form == Form::kCmake && cmake_false(v)) || !literal_list(v, n.form))
        continue;
      out.push_back({lineno, c.begin + 1, std::string(n.text), n.form, std::string(v)});
    }
  }
}

void scan_gencode(std::string_view line, size_t comment_at, uint64_t lineno, std::vector<ArchSetting>& out) {
  for (std::string_view flag : {std::string_view("--generate-code"), std::string_view("-gencode")}) {
    for (size_t at = line.find(flag); at != std::string_view::npos; at = line.find(flag, at + 1)) {
      if (at >= comment_at) break;
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
      // One shell/CMake word: quotes (and backslash-escaped quotes) are part
      // of it and dropped; it ends at a blank outside quotes, or at ';' (a
      // CMake list of flags) or ')' outside quotes.
      const size_t begin = p;
      std::string word;
      char quote = 0;
      for (; p < line.size(); ++p) {
        char ch = line[p];
        if (ch == '\\' && p + 1 < line.size() && (line[p + 1] == '"' || line[p + 1] == '\'' || line[p + 1] == ';')) {
          ++p;
          if (line[p] == ';' && !quote) break;
          continue;
        }
        if (quote) {
          if (ch == quote) quote = 0;
          else word += ch;
          continue;
        }
        if (ch == '"' || ch == '\'') {
          if (!word.empty() || p > begin) {  // a quote that closes an outer string ends the word
            if (word.find("code=") == std::string::npos || word.back() != '=') break;
          }
          quote = ch;
          continue;
        }
        if (blank(ch) || ch == ';' || ch == ')') break;
        word += ch;
      }
      if (quote) continue;  // unclosed on this line
      std::string_view v = trim(word);
      if (v.empty() || uses_variable(v) || !gencode_like(v)) continue;
      // LTO-IR targets (code=lto_80) are valid nvcc input cuwheel's
      // parser does not take: skipped, not reported.
      if (v.find("lto_") != std::string_view::npos) continue;
      out.push_back({lineno, begin + 1, "-gencode", Form::kGencode, "-gencode " + std::string(v)});
    }
  }
}

// Where the line's comment starts ('#' at the start or after a blank,
// outside quotes: shell, CMake, YAML, Python, make), or npos.
size_t comment_start(std::string_view line) {
  char quote = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quote) {
      if (c == '\\') ++i;
      else if (c == quote) quote = 0;
      continue;
    }
    if (c == '"' || c == '\'') quote = c;
    else if (c == '#' && (i == 0 || blank(line[i - 1]))) return i;
  }
  return std::string_view::npos;
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
      const size_t comment_at = comment_start(line);
      scan_names(line, comment_at, lineno, out);
      scan_gencode(line, comment_at, lineno, out);
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
