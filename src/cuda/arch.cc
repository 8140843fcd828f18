// GPU architecture lists, and what each release builds (from the release
// table of include/cuwheel/cuda/releases.h). See include/cuwheel/cuda/arch.h
// and docs/arch.md.
#include "cuwheel/cuda/arch.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace cuwheel::arch {

namespace {

// Releases are compared as major * 100 + minor (12.8 -> 1208).
constexpr unsigned rel(unsigned major, unsigned minor) { return major * 100 + minor; }
constexpr unsigned kNever = 0;

// One compute capability: the properties of the GPUs that have it. What
// each release can build for it is in the release table
// (cuwheel/cuda/releases.h, "adds", "deprecates", "removes").
// Sources: cuda-facts.md 3.2 (developer.nvidia.com/cuda-gpus via the mirrors
// cited there: families, Tegra parts); sm_88 has no documented product,
// sm_107 is reported as Rubin [L-M].
struct ArchRow {
  unsigned sm;
  bool tegra;           // an embedded (Jetson/Thor) part
  bool product_known;   // a shipped GPU with this compute capability is documented
  const char* family;
};

constexpr ArchRow kArchs[] = {
    {35, false, true, "Kepler"},  {37, false, true, "Kepler"},     {50, false, true, "Maxwell"},
    {52, false, true, "Maxwell"}, {53, true, true, "Maxwell"},     {60, false, true, "Pascal"},
    {61, false, true, "Pascal"},  {62, true, true, "Pascal"},      {70, false, true, "Volta"},
    {72, true, true, "Volta"},    {75, false, true, "Turing"},     {80, false, true, "Ampere"},
    {86, false, true, "Ampere"},  {87, true, true, "Ampere"},      {88, false, false, ""},
    {89, false, true, "Ada"},     {90, false, true, "Hopper"},     {100, false, true, "Blackwell"},
    {101, true, true, "Blackwell"}, {103, false, true, "Blackwell"}, {107, false, false, "Rubin"},
    {110, true, true, "Blackwell"}, {120, false, true, "Blackwell"}, {121, false, true, "Blackwell"},
};

// An architecture with the releases of the release table that change it.
struct Known {
  unsigned sm;
  unsigned added;       // first release that builds it (1100 = 11.0 or older)
  unsigned removed;     // first release that no longer builds it (kNever)
  unsigned deprecated;  // first release that deprecates it (kNever)
  unsigned a_added;     // first release with the 'a' variant (kNever = none)
  unsigned f_added;     // first release with the 'f' variant (kNever = none)
  bool tegra;
  bool product_known;
  const char* family;
};

// Calls f(sm, variant letter or 0) for each "90 90a" token of a column.
template <typename F>
void each_token(std::string_view col, F f) {
  size_t i = 0;
  while (i < col.size()) {
    size_t j = col.find(' ', i);
    if (j == std::string_view::npos) j = col.size();
    std::string_view tok = col.substr(i, j - i);
    i = j + 1;
    if (tok.empty()) continue;
    char v = 0;
    if (tok.back() == 'a' || tok.back() == 'f') {
      v = tok.back();
      tok.remove_suffix(1);
    }
    f(static_cast<unsigned>(std::stoul(std::string(tok))), v);
  }
}

// kArchs joined with the release table's columns, built once.
const std::vector<Known>& known_table() {
  static const std::vector<Known> k = [] {
    std::vector<Known> v;
    for (const auto& a : kArchs) v.push_back({a.sm, kNever, kNever, kNever, kNever, kNever, a.tegra, a.product_known, a.family});
    auto at = [&](unsigned sm) -> Known* {
      for (auto& x : v)
        if (x.sm == sm) return &x;
      return nullptr;  // a table row for an architecture kArchs lacks: the unit test catches it
    };
    auto first = [](unsigned& field, unsigned r) {
      if (field == kNever) field = r;
    };
    for (const auto& row : cuda::release_table()) {
      if (!row.current) continue;
      unsigned r = rel(row.release.major, row.release.minor);
      each_token(row.adds, [&](unsigned sm, char c) {
        if (Known* x = at(sm)) first(c == 'a' ? x->a_added : c == 'f' ? x->f_added : x->added, r);
      });
      each_token(row.deprecates, [&](unsigned sm, char) {
        if (Known* x = at(sm)) first(x->deprecated, r);
      });
      each_token(row.removes, [&](unsigned sm, char) {
        if (Known* x = at(sm)) first(x->removed, r);
      });
    }
    return v;
  }();
  return k;
}

const Known* find_known(unsigned sm) {
  for (const auto& k : known_table())
    if (k.sm == sm) return &k;
  return nullptr;
}

std::string rel_string(unsigned r) { return std::to_string(r / 100) + "." + std::to_string(r % 100); }

char variant_char(Variant v) { return v == Variant::kA ? 'a' : v == Variant::kF ? 'f' : '\0'; }

std::string with_variant(std::string s, Variant v) {
  if (char c = variant_char(v)) s.push_back(c);
  return s;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Splits on any of `seps`, dropping empty tokens.
std::vector<std::string> split_any(std::string_view s, std::string_view seps) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (seps.find(c) != std::string_view::npos) {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

constexpr std::string_view kSpace = " \t\r\n";

// PyTorch's named families (torch/utils/cpp_extension.py named_arches, plus
// the Blackwell name people write).
constexpr std::string_view kTorchNames[] = {"kepler+tesla", "kepler", "maxwell+tegra", "maxwell", "pascal",
                                            "volta+tegra",  "volta",  "turing",        "ampere+tegra", "ampere",
                                            "ada",          "hopper", "blackwell",     "rubin"};

bool is_torch_name(std::string_view tok) {
  std::string l = lower(tok);
  if (l.size() > 4 && l.substr(l.size() - 4) == "+ptx") l.resize(l.size() - 4);
  for (auto n : kTorchNames)
    if (l == n) return true;
  return false;
}

bool is_cmake_name(std::string_view tok) {
  std::string l = lower(tok);
  return l == "native" || l == "all" || l == "all-major";
}

std::string name_explicitly(std::string_view tok, std::string_view example) {
  return "\"" + std::string(tok) + "\" is a named architecture set, not a list: name the architectures explicitly (e.g. " +
         std::string(example) + ")";
}

// Reads "<number>[a|f]" from the start of s as an sm number: a decimal
// number without leading zeros ("0" itself is one), at most 9 digits. Any
// such number is well-formed; whether an architecture has it is
// check_known()'s question (sm_0 and sm_99 parse, and are reported there).
// Returns the characters consumed, 0 on failure.
size_t read_sm(std::string_view s, unsigned& sm, Variant& v) {
  size_t i = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
  if (i == 0 || i > 9 || (i > 1 && s[0] == '0')) return 0;
  sm = static_cast<unsigned>(std::stoul(std::string(s.substr(0, i))));
  v = Variant::kBase;
  if (i < s.size() && (s[i] == 'a' || s[i] == 'f')) {
    v = s[i] == 'a' ? Variant::kA : Variant::kF;
    ++i;
  }
  return i;
}

// "sm_90a" / "compute_90a" -> target with the flag for that prefix.
std::optional<Target> read_named(std::string_view tok) {
  Target t;
  std::string_view rest;
  if (tok.rfind("sm_", 0) == 0) {
    t.sass = true;
    rest = tok.substr(3);
  } else if (tok.rfind("compute_", 0) == 0) {
    t.ptx = true;
    rest = tok.substr(8);
  } else {
    return std::nullopt;
  }
  size_t n = read_sm(rest, t.sm, t.variant);
  if (n == 0 || n != rest.size()) return std::nullopt;
  return t;
}

void add(std::vector<Target>& out, const Target& t) {
  for (auto& e : out)
    if (e.sm == t.sm && e.variant == t.variant) {
      e.sass = e.sass || t.sass;
      e.ptx = e.ptx || t.ptx;
      return;
    }
  out.push_back(t);
}

void sort_targets(std::vector<Target>& v) {
  std::sort(v.begin(), v.end(), [](const Target& a, const Target& b) {
    return a.sm != b.sm ? a.sm < b.sm : static_cast<int>(a.variant) < static_cast<int>(b.variant);
  });
}

std::string quoted(std::string_view s) { return "\"" + std::string(s) + "\""; }

// One TORCH_CUDA_ARCH_LIST entry, spelled exactly as PyTorch reads it:
// torch/utils/cpp_extension.py (_get_cuda_arch_flags) accepts an entry only
// if it is in its list of "X.Y" / "X.Ya" strings or that plus "+PTX", and
// adds PTX when arch.endswith('+PTX'): both case-sensitive.
std::optional<Target> read_torch(std::string_view s) {
  Target t;
  t.sass = true;
  if (s.size() > 4 && s.substr(s.size() - 4) == "+PTX") {
    t.ptx = true;
    s.remove_suffix(4);
  }
  size_t dot = s.find('.');
  // A compute capability X.Y: X without leading zeros, Y one digit.
  if (dot == std::string_view::npos || dot == 0 || dot > 8 || !all_digits(s.substr(0, dot)) ||
      (dot > 1 && s[0] == '0') || dot + 1 >= s.size() || !std::isdigit(static_cast<unsigned char>(s[dot + 1])))
    return std::nullopt;
  std::string_view suffix = s.substr(dot + 2);
  if (suffix == "a") t.variant = Variant::kA;
  else if (suffix == "f") t.variant = Variant::kF;
  else if (!suffix.empty()) return std::nullopt;
  t.sm = static_cast<unsigned>(std::stoul(std::string(s.substr(0, dot)))) * 10 + static_cast<unsigned>(s[dot + 1] - '0');
  return t;
}

// "9.0+ptx" -> "9.0+PTX", "9.0A" -> "9.0a": the spelling PyTorch reads, when
// only the case is wrong; "" otherwise.
std::string torch_spelling(std::string_view tok) {
  std::string l = lower(tok);
  if (l.size() > 4 && l.substr(l.size() - 4) == "+ptx") l = l.substr(0, l.size() - 4) + "+PTX";
  return l != tok && read_torch(l) ? l : "";
}

Expected<std::vector<Target>> parse_torch(std::string_view text) {
  std::vector<Target> out;
  for (const auto& tok : split_any(text, " \t\r\n;,")) {
    if (is_torch_name(tok)) return Error(name_explicitly(tok, "9.0 for Hopper"));
    if (is_cmake_name(tok)) return Error(name_explicitly(tok, "7.5;8.0;9.0+PTX"));
    auto t = read_torch(tok);
    if (!t) {
      if (std::string w = torch_spelling(tok); !w.empty())
        return Error("TORCH_CUDA_ARCH_LIST entry " + quoted(tok) +
                     ": PyTorch reads only the exact spellings \"+PTX\" and a lower-case 'a'/'f' "
                     "(torch.utils.cpp_extension refuses any other case: \"Unknown CUDA arch\"): write '" + w + "'");
      return Error("TORCH_CUDA_ARCH_LIST entry " + quoted(tok) + " is not of the form 8.6, 9.0a, 10.0f or 9.0+PTX");
    }
    add(out, *t);
  }
  return out;
}

// One CMake entry, or an empty vector when it is not of the form.
std::vector<Target> parse_cmake_entry(std::string_view s) {
  Target t;
  if (s.size() > 5 && s.substr(s.size() - 5) == "-real") {
    t.sass = true;
    s.remove_suffix(5);
  } else if (s.size() > 8 && s.substr(s.size() - 8) == "-virtual") {
    t.ptx = true;
    s.remove_suffix(8);
  } else {
    t.sass = t.ptx = true;
  }
  size_t n = read_sm(s, t.sm, t.variant);
  if (n == 0 || n != s.size()) return {};
  return {t};
}

// nvcc's names and keys are lower case ("sm_90a", "compute_90",
// "arch=", "code="; nvcc --help, --gpu-architecture): "SM_90A" -> the
// hint to write "sm_90a".
std::string nvcc_case_hint(std::string_view tok) {
  return "nvcc's architecture names are lower case: write '" + lower(tok) + "'";
}

Expected<std::vector<Target>> parse_cmake(std::string_view text) {
  std::vector<Target> out;
  for (const auto& tok : split_any(text, " \t\r\n;,")) {
    if (is_cmake_name(tok)) return Error(name_explicitly(tok, "75-real;80-real;90"));
    if (is_torch_name(tok)) return Error(name_explicitly(tok, "90 for Hopper"));
    auto t = parse_cmake_entry(tok);
    if (t.empty()) {
      // CMake matches the "-real" / "-virtual" suffixes and the 'a'/'f'
      // letters case-sensitively (CUDA_ARCHITECTURES documentation).
      if (std::string l = lower(tok); l != tok && !parse_cmake_entry(l).empty())
        return Error("CMAKE_CUDA_ARCHITECTURES entry " + quoted(tok) +
                     ": CMake's suffixes are lower case (-real, -virtual, a, f): write '" + l + "'");
      return Error("CMAKE_CUDA_ARCHITECTURES entry " + quoted(tok) + " is not of the form 80, 90a-real or 120-virtual");
    }
    add(out, t[0]);
  }
  return out;
}

// The value of one -gencode: "arch=compute_90,code=[sm_90,compute_90]".
Status parse_gencode_value(std::string_view val, std::vector<Target>& out) {
  std::string v;
  for (char c : val)
    if (c != '"' && c != '\'') v.push_back(c);
  std::string bad = "-gencode " + quoted(v) + " is not of the form arch=compute_90,code=[sm_90,compute_90]";
  if (std::string l = lower(v); l != v) {
    std::vector<Target> scratch;
    if (parse_gencode_value(l, scratch)) return Error("-gencode " + quoted(v) + ": " + nvcc_case_hint(v));
  }
  if (v.rfind("arch=", 0) != 0) return Error(bad);
  size_t comma = v.find(",code=");
  if (comma == std::string::npos) return Error(bad);
  auto virt = read_named(std::string_view(v).substr(5, comma - 5));
  if (!virt || !virt->ptx) return Error(bad + ": arch= must name a compute_NN");
  std::string codes = v.substr(comma + 6);
  if (!codes.empty() && codes.front() == '[') {
    if (codes.back() != ']') return Error(bad);
    codes = codes.substr(1, codes.size() - 2);
  }
  auto list = split_any(codes, ",");
  if (list.empty()) return Error(bad);
  for (const auto& c : list) {
    auto t = read_named(c);
    if (!t) return Error("-gencode " + quoted(v) + ": code " + quoted(c) + " is not sm_NN or compute_NN");
    if (t->ptx && !(t->sm == virt->sm && t->variant == virt->variant))
      return Error("-gencode " + quoted(v) + ": PTX " + t->compute_name() + " differs from arch=" +
                   virt->compute_name() + " (nvcc embeds the PTX of the arch= virtual architecture only)");
    // nvcc's pairing of arch= and code= (nvcc documentation, "Virtual
    // Architectures" and --generate-code; nvcc 13.0 says "Incompatible
    // code generation requested" for a pair that breaks it, or ptxas
    // refuses the PTX it was given): an architecture-specific compute_Xa
    // compiles only to its own sm_Xa; a plain compute_X to any sm_Y with
    // Y >= X; a family-specific compute_Xf to sm_Y, sm_Ya or sm_Yf of its
    // own family (same major) with Y >= X.
    if (t->sass && virt->variant == Variant::kA && !(t->sm == virt->sm && t->variant == Variant::kA))
      return Error("-gencode " + quoted(v) + ": arch=" + virt->compute_name() + " compiles only to " +
                   virt->sm_name() + ", not " + t->sm_name() +
                   " (nvcc refuses the pair, \"Incompatible code generation requested\", or ptxas its PTX: "
                   "architecture-specific PTX compiles to its own architecture only)");
    if (t->sass && t->sm < virt->sm)
      return Error("-gencode " + quoted(v) + ": " + t->sm_name() + " is older than arch=" + virt->compute_name() +
                   " (nvcc cannot compile PTX down to an older architecture)");
    if (t->sass && virt->variant == Variant::kF && t->sm / 10 != virt->sm / 10)
      return Error("-gencode " + quoted(v) + ": arch=" + virt->compute_name() + " compiles only to its own family (sm_" +
                   std::to_string(virt->sm / 10) + "x at or above " + virt->sm_name() + "), not " + t->sm_name() +
                   " (nvcc refuses the pair, \"Incompatible code generation requested\", or ptxas its PTX)");
    add(out, *t);
  }
  return Ok{};
}

Expected<std::vector<Target>> parse_gencode(std::string_view text) {
  std::vector<Target> out;
  auto toks = split_any(text, kSpace);
  for (size_t i = 0; i < toks.size(); ++i) {
    std::string tok = toks[i];
    std::string value;
    bool is_gencode = false, is_arch = false;
    for (std::string_view flag : {"-gencode", "--generate-code"}) {
      if (tok == flag) {
        if (i + 1 >= toks.size()) return Error(std::string(flag) + " at the end of the flags has no value");
        value = toks[++i];
        is_gencode = true;
      } else if (tok.rfind(std::string(flag) + "=", 0) == 0) {
        value = tok.substr(flag.size() + 1);
        is_gencode = true;
      }
    }
    for (std::string_view flag : {"-arch", "--gpu-architecture"}) {
      if (is_gencode) break;
      if (tok == flag) {
        if (i + 1 >= toks.size()) return Error(std::string(flag) + " at the end of the flags has no value");
        value = toks[++i];
        is_arch = true;
      } else if (tok.rfind(std::string(flag) + "=", 0) == 0) {
        value = tok.substr(flag.size() + 1);
        is_arch = true;
      }
    }
    if (is_gencode) {
      if (auto st = parse_gencode_value(value, out); !st) return st.error();
    } else if (is_arch) {
      if (is_cmake_name(value)) return Error(name_explicitly(value, "-gencode arch=compute_90,code=sm_90"));
      auto t = read_named(value);
      if (!t && read_named(lower(value))) return Error("-arch " + quoted(value) + ": " + nvcc_case_hint(value));
      if (!t) return Error("-arch " + quoted(value) + " is not sm_NN or compute_NN");
      // nvcc: -arch=sm_XY is shorthand for -arch=compute_XY -code=sm_XY,compute_XY.
      t->ptx = true;
      add(out, *t);
    } else {
      return Error("unexpected nvcc flag " + quoted(tok) + " (expected -gencode arch=compute_NN,code=...)");
    }
  }
  return out;
}

Expected<std::vector<Target>> parse_list(std::string_view text) {
  std::vector<Target> out;
  for (const auto& tok : split_any(text, " \t\r\n;,")) {
    if (is_cmake_name(tok) || is_torch_name(tok)) return Error(name_explicitly(tok, "sm_80,sm_90,compute_90"));
    auto t = read_named(tok);
    if (!t && read_named(lower(tok))) return Error("architecture " + quoted(tok) + ": " + nvcc_case_hint(tok));
    if (!t) return Error("architecture " + quoted(tok) + " is not of the form sm_90, sm_100a or compute_120f");
    add(out, *t);
  }
  return out;
}

}  // namespace

std::string Arch::sm_name() const { return with_variant("sm_" + std::to_string(sm), variant); }
std::string Arch::compute_name() const { return with_variant("compute_" + std::to_string(sm), variant); }
std::string Arch::cc_name() const {
  return with_variant(std::to_string(sm / 10) + "." + std::to_string(sm % 10), variant);
}

std::optional<Arch> Arch::parse(std::string_view s) {
  for (std::string_view prefix : {"sm_", "compute_", "lto_"}) {
    if (s.substr(0, prefix.size()) != prefix) continue;
    s.remove_prefix(prefix.size());
    Arch a;
    if (!s.empty() && (s.back() == 'a' || s.back() == 'f')) {
      a.variant = s.back() == 'a' ? Variant::kA : Variant::kF;
      s.remove_suffix(1);
    }
    if (s.empty() || s.size() > 4 || !all_digits(s)) return std::nullopt;
    a.sm = static_cast<unsigned>(std::stoul(std::string(s)));
    if (a.sm < 10) return std::nullopt;
    return a;
  }
  return std::nullopt;
}

bool is_tegra(unsigned sm) {
  const Known* k = find_known(sm);
  return k && k->tegra;
}

bool is_known_cc(unsigned sm) { return find_known(sm) != nullptr; }

std::string_view to_string(Form f) {
  switch (f) {
    case Form::kTorch: return "torch";
    case Form::kCmake: return "cmake";
    case Form::kGencode: return "gencode";
    case Form::kList: return "list";
  }
  return "list";
}

std::optional<Form> parse_form(std::string_view s) {
  for (Form f : {Form::kTorch, Form::kCmake, Form::kGencode, Form::kList})
    if (s == to_string(f)) return f;
  return std::nullopt;
}

Expected<Form> detect_form(std::string_view text) {
  auto toks = split_any(text, " \t\r\n;,");
  if (toks.empty()) return Error("the architecture list is empty");
  for (const auto& t : split_any(text, kSpace))
    if (t.rfind("-gencode", 0) == 0 || t.rfind("--generate-code", 0) == 0 || t.rfind("-arch", 0) == 0 ||
        t.rfind("--gpu-architecture", 0) == 0 || t.rfind("arch=compute_", 0) == 0)
      return Form::kGencode;
  for (const auto& t : toks)
    if (lower(t).rfind("sm_", 0) == 0 || lower(t).rfind("compute_", 0) == 0) return Form::kList;
  for (const auto& t : toks)
    if (t.find('.') != std::string::npos || lower(t).find("+ptx") != std::string::npos || is_torch_name(t))
      return Form::kTorch;
  return Form::kCmake;
}

Expected<std::vector<Target>> parse(std::string_view text, Form form) {
  Expected<std::vector<Target>> r = std::vector<Target>{};
  switch (form) {
    case Form::kTorch: r = parse_torch(text); break;
    case Form::kCmake: r = parse_cmake(text); break;
    case Form::kGencode: r = parse_gencode(text); break;
    case Form::kList: r = parse_list(text); break;
  }
  if (!r) return r;
  if (r->empty()) return Error("the architecture list is empty");
  sort_targets(*r);
  return r;
}

Expected<std::vector<Target>> parse_any(std::string_view text) {
  auto f = detect_form(text);
  if (!f) return f.error();
  return parse(text, *f);
}

Expected<std::string> format(const std::vector<Target>& targets, Form form) {
  std::string out;
  auto sep = [&](std::string_view s) {
    if (!out.empty()) out += s;
  };
  for (const auto& t : targets) {
    if (!t.sass && !t.ptx) continue;
    std::string digits = with_variant(std::to_string(t.sm), t.variant);
    switch (form) {
      case Form::kTorch:
        if (!t.sass)
          return Error(t.compute_name() + " without " + t.sm_name() +
                       " cannot be written as TORCH_CUDA_ARCH_LIST: its +PTX always adds the SASS too");
        sep(";");
        out += t.cc_name() + (t.ptx ? "+PTX" : "");
        break;
      case Form::kCmake:
        sep(";");
        out += digits + (t.sass && t.ptx ? "" : t.sass ? "-real" : "-virtual");
        break;
      case Form::kGencode:
        if (t.sass) {
          sep(" ");
          out += "-gencode arch=" + t.compute_name() + ",code=" + t.sm_name();
        }
        if (t.ptx) {
          sep(" ");
          out += "-gencode arch=" + t.compute_name() + ",code=" + t.compute_name();
        }
        break;
      case Form::kList:
        if (t.sass) {
          sep(",");
          out += t.sm_name();
        }
        break;
    }
  }
  if (form == Form::kList)
    for (const auto& t : targets)
      if (t.ptx) {
        sep(",");
        out += t.compute_name();
      }
  return out;
}

std::optional<std::string> check_known(const Target& t) {
  const Known* k = find_known(t.sm);
  std::string name = t.ptx && !t.sass ? t.compute_name() : t.sm_name();
  // An architecture the release table never adds is no more buildable than an unknown one.
  if (!k || k->added == kNever) return name + " is not an NVIDIA GPU architecture any CUDA release can build";
  if (t.variant == Variant::kA && k->a_added == kNever)
    return name + ": there is no architecture-specific 'a' variant of sm_" + std::to_string(t.sm) +
           " (they exist for sm_90 and newer data-center/Blackwell parts)";
  if (t.variant == Variant::kF && k->f_added == kNever)
    return name + ": there is no family-specific 'f' variant of sm_" + std::to_string(t.sm) +
           " ('f' targets exist for compute capability 10.0 and newer)";
  return std::nullopt;
}

std::optional<std::string> check_buildable(const Target& t, Release release) {
  if (auto e = check_known(t)) return e;
  const Known& k = *find_known(t.sm);
  unsigned r = rel(release.major, release.minor);
  std::string name = t.ptx && !t.sass ? t.compute_name() : t.sm_name();
  std::string cuda = "CUDA " + release.to_string() + " cannot build it: ";
  if (k.removed != kNever && r >= k.removed) {
    std::string why = cuda + "it was removed in " + rel_string(k.removed);
    if (k.sm == 101) why += " (renamed sm_110)";
    else if (k.removed == rel(13, 0)) why += " (Maxwell, Pascal and Volta)";
    else if (k.removed == rel(12, 0)) why += " (Kepler)";
    return name + ": " + why;
  }
  unsigned need = k.added;
  if (t.variant == Variant::kA) need = std::max(need, k.a_added);
  if (t.variant == Variant::kF) need = std::max(need, k.f_added);
  if (r < need) return name + ": " + cuda + "it needs CUDA " + rel_string(need) + " or newer";
  return std::nullopt;
}

std::optional<std::string> check_deprecated(const Target& t, Release release) {
  if (check_buildable(t, release)) return std::nullopt;
  const Known& k = *find_known(t.sm);
  unsigned r = rel(release.major, release.minor);
  if (k.deprecated == kNever || r < k.deprecated) return std::nullopt;
  std::string name = t.ptx && !t.sass ? t.compute_name() : t.sm_name();
  std::string msg = name + ": CUDA " + release.to_string() + " deprecates it (" + k.family + ", deprecated since " +
                    rel_string(k.deprecated) + ")";
  if (k.removed != kNever) msg += "; CUDA " + rel_string(k.removed) + " cannot build it";
  return msg;
}

std::vector<Target> targetable(Release release) {
  std::vector<Target> out;
  for (const auto& k : known_table())
    for (Variant v : {Variant::kBase, Variant::kA, Variant::kF}) {
      Target t{k.sm, v, true, true};
      if (!check_buildable(t, release)) out.push_back(t);
    }
  return out;
}

std::vector<Target> release_list(Release release) {
  std::vector<Target> out;
  unsigned r = rel(release.major, release.minor);
  for (const auto& k : known_table()) {
    if (k.tegra || !k.product_known) continue;
    if (k.deprecated != kNever && r >= k.deprecated) continue;
    Target t{k.sm, Variant::kBase, true, false};
    if (check_buildable(t, release)) continue;
    out.push_back(t);
  }
  if (!out.empty()) out.back().ptx = true;
  return out;
}

std::vector<Arch> parse_names(const std::vector<std::string>& names) {
  std::vector<Arch> out;
  for (const auto& n : names)
    if (auto a = Arch::parse(n)) out.push_back(*a);
  return out;
}

std::vector<unsigned> shipped_gpus(bool with_tegra) {
  std::vector<unsigned> out;
  for (const auto& k : known_table())
    if (k.product_known && (with_tegra || !k.tegra)) out.push_back(k.sm);
  return out;
}

std::string_view family_name(unsigned sm) {
  const Known* k = find_known(sm);
  return k ? k->family : "";
}

}  // namespace cuwheel::arch
