// PEP 440 versions and specifiers. The grammar and the comparison key follow
// the `packaging` library (packaging/version.py VERSION_PATTERN and _cmpkey,
// packaging/specifiers.py), which is what installers actually do.
#include "cuwheel/wheel/pep440.h"

#include <algorithm>
#include <cctype>

#include "cuwheel/base/bytes.h"

namespace cuwheel {

namespace {

char lower(char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alnum(char c) { return is_digit(c) || (c >= 'a' && c <= 'z'); }
bool is_sep(char c) { return c == '-' || c == '_' || c == '.'; }

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Cursor over a lowercased copy of the version text.
struct Scan {
  std::string s;
  size_t pos = 0;
  bool overflow = false;

  bool at_end() const { return pos >= s.size(); }
  char peek(size_t ahead = 0) const { return pos + ahead < s.size() ? s[pos + ahead] : '\0'; }
  bool eat(char c) {
    if (peek() != c) return false;
    ++pos;
    return true;
  }
  bool eat_word(std::string_view w) {
    if (s.compare(pos, w.size(), w) != 0) return false;
    pos += w.size();
    return true;
  }
  bool eat_sep() {
    if (!is_sep(peek())) return false;
    ++pos;
    return true;
  }
  // Reads [0-9]+; false (pos unchanged) when no digit is there.
  bool number(uint64_t& out) {
    if (!is_digit(peek())) return false;
    uint64_t v = 0;
    while (is_digit(peek())) {
      if (mul_overflow(v, 10, v) || add_overflow(v, static_cast<uint64_t>(peek() - '0'), v))
        overflow = true;
      ++pos;
    }
    out = v;
    return true;
  }
};

Error version_error(std::string_view text, size_t column, std::string_view why) {
  return Error("invalid version '" + printable(text) + "': column " + std::to_string(column + 1) +
               ": " + std::string(why));
}

// Release segment with trailing zeros removed, for comparison.
std::vector<uint64_t> trimmed_release(const std::vector<uint64_t>& r) {
  size_t n = r.size();
  while (n > 0 && r[n - 1] == 0) --n;
  return std::vector<uint64_t>(r.begin(), r.begin() + static_cast<long>(n));
}

}  // namespace

Expected<Version> Version::parse(std::string_view text) {
  std::string_view t = trim(text);
  size_t lead = static_cast<size_t>(t.data() - text.data());
  Scan sc;
  sc.s.reserve(t.size());
  for (char c : t) sc.s.push_back(lower(c));
  auto fail = [&](std::string_view why) { return version_error(text, lead + sc.pos, why); };

  Version v;
  sc.eat('v');
  uint64_t n = 0;
  if (!sc.number(n)) return fail("expected a release number");
  if (sc.eat('!')) {
    v.epoch = n;
    if (!sc.number(n)) return fail("expected a release number after the epoch");
  }
  v.release.push_back(n);
  while (sc.peek() == '.' && is_digit(sc.peek(1))) {
    sc.eat('.');
    sc.number(n);
    v.release.push_back(n);
  }

  // Pre-release: [-_.]?(alpha|a|beta|b|preview|pre|c|rc)[-_.]?N?
  {
    size_t save = sc.pos;
    sc.eat_sep();
    std::optional<PreKind> kind;
    if (sc.eat_word("alpha") || sc.eat_word("a")) kind = PreKind::kAlpha;
    else if (sc.eat_word("beta") || sc.eat_word("b")) kind = PreKind::kBeta;
    else if (sc.eat_word("preview") || sc.eat_word("pre") || sc.eat_word("c") || sc.eat_word("rc"))
      kind = PreKind::kRc;
    if (kind) {
      size_t before_sep = sc.pos;
      sc.eat_sep();
      uint64_t pn = 0;
      if (!sc.number(pn)) sc.pos = before_sep;  // implicit 0; give the separator back
      v.pre = Pre{*kind, pn};
    } else {
      sc.pos = save;
    }
  }
  // Post-release: -N | [-_.]?(post|rev|r)[-_.]?N?
  {
    size_t save = sc.pos;
    uint64_t pn = 0;
    if (sc.peek() == '-' && is_digit(sc.peek(1))) {
      sc.eat('-');
      sc.number(pn);
      v.post = pn;
    } else {
      sc.eat_sep();
      if (sc.eat_word("post") || sc.eat_word("rev") || sc.eat_word("r")) {
        size_t before_sep = sc.pos;
        sc.eat_sep();
        if (!sc.number(pn)) sc.pos = before_sep;
        v.post = pn;
      } else {
        sc.pos = save;
      }
    }
  }
  // Dev-release: [-_.]?dev[-_.]?N?
  {
    size_t save = sc.pos;
    sc.eat_sep();
    if (sc.eat_word("dev")) {
      size_t before_sep = sc.pos;
      sc.eat_sep();
      uint64_t dn = 0;
      if (!sc.number(dn)) sc.pos = before_sep;
      v.dev = dn;
    } else {
      sc.pos = save;
    }
  }
  // Local: +[a-z0-9]+([-_.][a-z0-9]+)*
  if (sc.eat('+')) {
    for (;;) {
      size_t start = sc.pos;
      while (is_alnum(sc.peek())) ++sc.pos;
      if (sc.pos == start) return fail("expected a local version segment");
      std::string part = sc.s.substr(start, sc.pos - start);
      if (std::all_of(part.begin(), part.end(), is_digit)) {
        uint64_t num = 0;
        Scan tmp{part};
        tmp.number(num);
        if (tmp.overflow) return fail("number in local version too large");
        v.local.emplace_back(num);
      } else {
        v.local.emplace_back(std::move(part));
      }
      if (!sc.eat_sep()) break;
    }
  }
  if (sc.overflow) return version_error(text, lead, "number too large (more than 64 bits)");
  if (!sc.at_end()) return fail("unexpected character");
  return v;
}

std::string Version::base_string() const {
  std::string out;
  if (epoch) out += std::to_string(epoch) + "!";
  for (size_t i = 0; i < release.size(); ++i) {
    if (i) out += '.';
    out += std::to_string(release[i]);
  }
  return out;
}

std::string Version::public_string() const {
  std::string out = base_string();
  if (pre) {
    static const char* kNames[] = {"a", "b", "rc"};
    out += kNames[static_cast<int>(pre->kind)] + std::to_string(pre->number);
  }
  if (post) out += ".post" + std::to_string(*post);
  if (dev) out += ".dev" + std::to_string(*dev);
  return out;
}

std::string Version::to_string() const {
  std::string out = public_string();
  for (size_t i = 0; i < local.size(); ++i) {
    out += i ? '.' : '+';
    if (auto* num = std::get_if<uint64_t>(&local[i])) out += std::to_string(*num);
    else out += std::get<std::string>(local[i]);
  }
  return out;
}

Version Version::without_local() const {
  Version v = *this;
  v.local.clear();
  return v;
}

std::strong_ordering Version::operator<=>(const Version& o) const {
  if (auto c = epoch <=> o.epoch; c != 0) return c;
  if (auto c = trimmed_release(release) <=> trimmed_release(o.release); c != 0) return c;

  // Pre-release key: a dev release with no pre/post sorts before any
  // pre-release of the same release; no pre-release sorts after all of them.
  auto pre_key = [](const Version& v) -> std::pair<int, std::pair<int, uint64_t>> {
    if (!v.pre && !v.post && v.dev) return {-1, {0, 0}};
    if (!v.pre) return {1, {0, 0}};
    return {0, {static_cast<int>(v.pre->kind), v.pre->number}};
  };
  if (auto c = pre_key(*this) <=> pre_key(o); c != 0) return c;
  // No post release sorts before any post release.
  auto post_key = [](const Version& v) -> std::pair<int, uint64_t> {
    return v.post ? std::pair<int, uint64_t>{1, *v.post} : std::pair<int, uint64_t>{0, 0};
  };
  if (auto c = post_key(*this) <=> post_key(o); c != 0) return c;
  // No dev release sorts after any dev release.
  auto dev_key = [](const Version& v) -> std::pair<int, uint64_t> {
    return v.dev ? std::pair<int, uint64_t>{0, *v.dev} : std::pair<int, uint64_t>{1, 0};
  };
  if (auto c = dev_key(*this) <=> dev_key(o); c != 0) return c;
  // Local: absent sorts first; segments compare pairwise, numbers above
  // strings, strings lexicographically; a shorter prefix sorts first.
  size_t n = std::min(local.size(), o.local.size());
  for (size_t i = 0; i < n; ++i) {
    const auto& a = local[i];
    const auto& b = o.local[i];
    if (a.index() != b.index()) return a.index() == 0 ? std::strong_ordering::greater
                                                       : std::strong_ordering::less;
    if (a.index() == 0) {
      if (auto c = std::get<0>(a) <=> std::get<0>(b); c != 0) return c;
    } else {
      if (auto c = std::get<1>(a).compare(std::get<1>(b)) <=> 0; c != 0) return c;
    }
  }
  return local.size() <=> o.local.size();
}

// ---------------------------------------------------------------------------
// Specifiers

std::string_view to_string(Specifier::Op op) {
  switch (op) {
    case Specifier::Op::kCompatible: return "~=";
    case Specifier::Op::kEqual: return "==";
    case Specifier::Op::kNotEqual: return "!=";
    case Specifier::Op::kLessEqual: return "<=";
    case Specifier::Op::kGreaterEqual: return ">=";
    case Specifier::Op::kLess: return "<";
    case Specifier::Op::kGreater: return ">";
    case Specifier::Op::kArbitrary: return "===";
  }
  return "?";
}

Expected<Specifier> Specifier::parse(std::string_view text) {
  std::string_view t = trim(text);
  auto fail = [&](std::string_view why) {
    return Error("invalid specifier '" + printable(text) + "': " + std::string(why));
  };
  static const std::pair<std::string_view, Op> kOps[] = {
      {"===", Op::kArbitrary}, {"~=", Op::kCompatible}, {"==", Op::kEqual},
      {"!=", Op::kNotEqual},   {"<=", Op::kLessEqual},  {">=", Op::kGreaterEqual},
      {"<", Op::kLess},        {">", Op::kGreater},
  };
  Specifier s;
  bool found = false;
  for (const auto& [spelling, op] : kOps) {
    if (t.substr(0, spelling.size()) == spelling) {
      s.op = op;
      t.remove_prefix(spelling.size());
      found = true;
      break;
    }
  }
  if (!found) return fail("expected an operator (~= == != <= >= < > ===)");
  t = trim(t);
  if (t.empty()) return fail("missing version");
  s.text = std::string(t);
  if (s.op == Op::kArbitrary) {
    for (char c : t)
      if (std::isspace(static_cast<unsigned char>(c)) || c == ',' || c == ';' || c == ')')
        return fail("=== version contains whitespace or a delimiter");
    return s;
  }
  std::string_view vt = t;
  if (vt.size() >= 2 && vt.substr(vt.size() - 2) == ".*") {
    if (s.op != Op::kEqual && s.op != Op::kNotEqual)
      return fail("'.*' is only allowed with == and !=");
    s.wildcard = true;
    vt.remove_suffix(2);
  }
  auto v = Version::parse(vt);
  if (!v) return fail(v.error().message());
  s.version = std::move(*v);
  if (s.wildcard && (s.version.pre || s.version.post || s.version.dev || s.version.has_local()))
    return fail("a '.*' prefix may only hold an epoch and release numbers");
  if (s.version.has_local() && s.op != Op::kEqual && s.op != Op::kNotEqual)
    return fail("a local version label is only allowed with == and !=");
  if (s.op == Op::kCompatible && s.version.release.size() < 2)
    return fail("~= needs at least two release numbers");
  return s;
}

namespace {

// `==V.*`: same epoch, and the candidate's release (zero-padded) starts with
// V's release. Pre/post/dev parts of the candidate do not matter, as in
// packaging (which splits "1.0a1" into ["1", "0", "a1"] and compares the
// prefix).
bool prefix_match(const Version& spec, const Version& v) {
  if (spec.epoch != v.epoch) return false;
  for (size_t i = 0; i < spec.release.size(); ++i) {
    uint64_t c = i < v.release.size() ? v.release[i] : 0;
    if (c != spec.release[i]) return false;
  }
  return true;
}

bool equal_match(const Specifier& s, const Version& v) {
  if (s.wildcard) return prefix_match(s.version, v);
  // Without a local label in the spec, the candidate's label is ignored.
  if (!s.version.has_local()) return v.without_local() == s.version;
  return v == s.version;
}

}  // namespace

bool Specifier::contains(const Version& v) const {
  switch (op) {
    case Op::kEqual: return equal_match(*this, v);
    case Op::kNotEqual: return !equal_match(*this, v);
    case Op::kLessEqual: return v.without_local() <= version;
    case Op::kGreaterEqual: return v.without_local() >= version;
    case Op::kLess: {
      if (!(v.without_local() < version)) return false;
      // <V excludes pre-releases of V itself unless V is a pre-release.
      if (!version.is_prerelease() && v.is_prerelease()) {
        Version vb, sb;
        vb.epoch = v.epoch, vb.release = v.release;
        sb.epoch = version.epoch, sb.release = version.release;
        if (vb == sb) return false;
      }
      return true;
    }
    case Op::kGreater: {
      if (!(v.without_local() > version)) return false;
      Version vb, sb;
      vb.epoch = v.epoch, vb.release = v.release;
      sb.epoch = version.epoch, sb.release = version.release;
      // >V excludes post-releases of V unless V is one, and local versions of V.
      if (!version.is_postrelease() && v.is_postrelease() && vb == sb) return false;
      if (v.has_local() && vb == sb) return false;
      return true;
    }
    case Op::kCompatible: {
      if (!(v.without_local() >= version)) return false;
      Version prefix;
      prefix.epoch = version.epoch;
      prefix.release.assign(version.release.begin(), version.release.end() - 1);
      return prefix_match(prefix, v);
    }
    case Op::kArbitrary: return contains_text(v.to_string());
  }
  return false;
}

bool Specifier::contains_text(std::string_view version_text) const {
  if (op != Op::kArbitrary) {
    auto v = Version::parse(version_text);
    return v && contains(*v);
  }
  std::string_view a = trim(version_text);
  if (a.size() != text.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (lower(a[i]) != lower(text[i])) return false;
  return true;
}

bool Specifier::mentions_prerelease() const {
  if (op == Op::kNotEqual || op == Op::kArbitrary) return false;
  return version.is_prerelease();
}

std::string Specifier::to_string() const {
  std::string out(cuwheel::to_string(op));
  if (op == Op::kArbitrary) return out + text;
  out += version.to_string();
  if (wildcard) out += ".*";
  return out;
}

Expected<SpecifierSet> SpecifierSet::parse(std::string_view text) {
  SpecifierSet set;
  if (trim(text).empty()) return set;
  size_t start = 0;
  for (;;) {
    size_t comma = text.find(',', start);
    std::string_view part = text.substr(start, comma == std::string_view::npos ? text.npos : comma - start);
    if (trim(part).empty())
      return Error("invalid specifier set '" + printable(text) + "': column " +
                   std::to_string(start + 1) + ": empty clause");
    auto s = Specifier::parse(part);
    if (!s)
      return Error("invalid specifier set '" + printable(text) + "': column " +
                   std::to_string(start + 1) + ": " + s.error().message());
    set.specifiers.push_back(std::move(*s));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return set;
}

bool SpecifierSet::contains(const Version& v, bool include_prereleases) const {
  if (!include_prereleases) {
    for (const auto& s : specifiers)
      if (s.mentions_prerelease()) include_prereleases = true;
  }
  if (v.is_prerelease() && !include_prereleases) return false;
  for (const auto& s : specifiers)
    if (!s.contains(v)) return false;
  return true;
}

bool SpecifierSet::contains(std::string_view version_text, bool include_prereleases) const {
  auto v = Version::parse(version_text);
  if (!v) {
    if (specifiers.empty()) return false;
    for (const auto& s : specifiers)
      if (s.op != Specifier::Op::kArbitrary || !s.contains_text(version_text)) return false;
    return true;
  }
  if (!include_prereleases) {
    for (const auto& s : specifiers)
      if (s.mentions_prerelease()) include_prereleases = true;
  }
  if (v->is_prerelease() && !include_prereleases) return false;
  for (const auto& s : specifiers) {
    bool ok = s.op == Specifier::Op::kArbitrary ? s.contains_text(version_text) : s.contains(*v);
    if (!ok) return false;
  }
  return true;
}

std::string SpecifierSet::to_string() const {
  std::string out;
  for (size_t i = 0; i < specifiers.size(); ++i) {
    if (i) out += ',';
    out += specifiers[i].to_string();
  }
  return out;
}

}  // namespace cuwheel
