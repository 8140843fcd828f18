// RPM versions and repository metadata (repomd.xml, primary.xml) for
// `cuwheel toolkit lock`; see include/cuwheel/toolkit_repo.h.
#include <archive.h>
#include <expat.h>

#include <algorithm>
#include <cstring>

#include "cuwheel/digest.h"
#include "cuwheel/toolkit_http.h"
#include "cuwheel/toolkit_repo.h"

namespace cuwheel::toolkit {

// ---- versions -------------------------------------------------------------

namespace {
bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool is_alnum(char c) { return is_digit(c) || is_alpha(c); }
}  // namespace

// A transcription of rpm's rpmvercmp() (rpmio/rpmvercmp.c, rpm 4.18).
int rpmvercmp(std::string_view a, std::string_view b) {
  if (a == b) return 0;
  size_t i = 0, j = 0;
  auto at = [](std::string_view s, size_t k) { return k < s.size() ? s[k] : '\0'; };
  while (i < a.size() || j < b.size()) {
    // Separators (anything but alnum, '~' and '^') only split segments.
    while (i < a.size() && !is_alnum(a[i]) && a[i] != '~' && a[i] != '^') ++i;
    while (j < b.size() && !is_alnum(b[j]) && b[j] != '~' && b[j] != '^') ++j;
    char ca = at(a, i), cb = at(b, j);
    // '~' sorts before everything, even the end of the string.
    if (ca == '~' || cb == '~') {
      if (ca != '~') return 1;
      if (cb != '~') return -1;
      ++i, ++j;
      continue;
    }
    // '^' sorts after the end of the string but before any other segment.
    if (ca == '^' || cb == '^') {
      if (ca == '\0') return -1;
      if (cb == '\0') return 1;
      if (ca != '^') return 1;
      if (cb != '^') return -1;
      ++i, ++j;
      continue;
    }
    if (ca == '\0' || cb == '\0') break;
    size_t si = i, sj = j;
    bool numeric = is_digit(ca);
    if (numeric) {
      while (i < a.size() && is_digit(a[i])) ++i;
      while (j < b.size() && is_digit(b[j])) ++j;
    } else {
      while (i < a.size() && is_alpha(a[i])) ++i;
      while (j < b.size() && is_alpha(b[j])) ++j;
    }
    // A digit run against a letter run: the digit run is newer.
    if (sj == j) return numeric ? 1 : -1;
    std::string_view sa = a.substr(si, i - si), sb = b.substr(sj, j - sj);
    if (numeric) {
      while (sa.size() > 1 && sa[0] == '0') sa.remove_prefix(1);
      while (sb.size() > 1 && sb[0] == '0') sb.remove_prefix(1);
      if (sa.size() != sb.size()) return sa.size() > sb.size() ? 1 : -1;
    }
    int rc = sa.compare(sb);
    if (rc != 0) return rc < 0 ? -1 : 1;
  }
  bool ea = i >= a.size(), eb = j >= b.size();
  if (ea && eb) return 0;
  return ea ? -1 : 1;
}

Evr parse_evr(std::string_view text) {
  Evr e;
  size_t colon = text.find(':');
  if (colon != std::string_view::npos &&
      std::all_of(text.begin(), text.begin() + colon, [](char c) { return is_digit(c); })) {
    e.epoch = std::string(text.substr(0, colon));
    text.remove_prefix(colon + 1);
  }
  size_t dash = text.rfind('-');
  if (dash != std::string_view::npos) {
    e.version = std::string(text.substr(0, dash));
    e.release = std::string(text.substr(dash + 1));
  } else {
    e.version = std::string(text);
  }
  return e;
}

namespace {
bool epoch_is_zero(const std::string& e) {
  return std::all_of(e.begin(), e.end(), [](char c) { return c == '0'; });
}
int compare_epoch(const std::string& a, const std::string& b) {
  // Both are decimal digit strings (or empty = 0): compare as numbers of
  // any length.
  std::string_view x = a, y = b;
  while (!x.empty() && x[0] == '0') x.remove_prefix(1);
  while (!y.empty() && y[0] == '0') y.remove_prefix(1);
  if (x.size() != y.size()) return x.size() < y.size() ? -1 : 1;
  int rc = x.compare(y);
  return rc < 0 ? -1 : (rc > 0 ? 1 : 0);
}
}  // namespace

std::string format_evr(const Evr& evr) {
  std::string out;
  if (!epoch_is_zero(evr.epoch)) out = evr.epoch + ":";
  out += evr.version;
  if (!evr.release.empty()) out += "-" + evr.release;
  return out;
}

int compare_evr(const Evr& a, const Evr& b) {
  if (int rc = compare_epoch(a.epoch, b.epoch)) return rc;
  if (int rc = rpmvercmp(a.version, b.version)) return rc;
  if (a.release.empty() || b.release.empty()) return 0;
  return rpmvercmp(a.release, b.release);
}

std::string format_dependency(const Dependency& d) {
  static const char* ops[] = {"", "=", "<", "<=", ">", ">="};
  if (d.flags == DepFlags::kAny) return d.name;
  return d.name + " " + ops[static_cast<int>(d.flags)] + " " + format_evr(d.evr);
}

bool range_satisfies(const Dependency& provide, const Dependency& require) {
  if (provide.flags == DepFlags::kAny || require.flags == DepFlags::kAny) return true;
  auto less = [](DepFlags f) { return f == DepFlags::kLt || f == DepFlags::kLe; };
  auto greater = [](DepFlags f) { return f == DepFlags::kGt || f == DepFlags::kGe; };
  auto equal = [](DepFlags f) { return f == DepFlags::kEq || f == DepFlags::kLe || f == DepFlags::kGe; };
  // rpmdsCompare: sense = compare(A, B) with A the provide, B the require.
  int sense = compare_evr(provide.evr, require.evr);
  if (sense < 0) return greater(provide.flags) || less(require.flags);
  if (sense > 0) return less(provide.flags) || greater(require.flags);
  return (equal(provide.flags) && equal(require.flags)) || (less(provide.flags) && less(require.flags)) ||
         (greater(provide.flags) && greater(require.flags));
}

// ---- XML helpers ----------------------------------------------------------

namespace {

constexpr char kNsSep = '\x01';

// Element names arrive as "namespace\x01local" (XML_ParserCreateNS); the
// two namespaces of primary.xml (common and rpm) use distinct local names
// for what we read, so the local part is enough.
std::string_view local_name(const XML_Char* name) {
  std::string_view n(name);
  size_t p = n.rfind(kNsSep);
  return p == std::string_view::npos ? n : n.substr(p + 1);
}

const XML_Char* attr(const XML_Char** atts, std::string_view key) {
  for (size_t i = 0; atts[i]; i += 2)
    if (local_name(atts[i]) == key) return atts[i + 1];
  return nullptr;
}

std::string attr_s(const XML_Char** atts, std::string_view key) {
  const XML_Char* v = attr(atts, key);
  return v ? std::string(v) : std::string();
}

// Runs expat over `xml` in 1 MiB slices (so the parser never needs one
// huge buffer) with `state` as user data. Refuses DOCTYPE declarations, so
// no entity can be defined or expanded.
template <class State>
Status run_expat(std::string_view xml, const std::string& where, State& state, XML_StartElementHandler start,
                 XML_EndElementHandler end, XML_CharacterDataHandler text) {
  XML_Parser p = XML_ParserCreateNS(nullptr, kNsSep);
  if (!p) return Error(where + ": cannot create an XML parser");
  state.parser = p;
  XML_SetUserData(p, &state);
  XML_SetElementHandler(p, start, end);
  XML_SetCharacterDataHandler(p, text);
  XML_SetStartDoctypeDeclHandler(p, [](void* ud, const XML_Char*, const XML_Char*, const XML_Char*, int) {
    auto* s = static_cast<State*>(ud);
    s->fail("DOCTYPE declarations are not allowed in repository metadata");
  });
  constexpr size_t kSlice = 1 << 20;
  size_t off = 0;
  bool ok = true;
  do {
    size_t n = std::min(kSlice, xml.size() - off);
    bool last = off + n == xml.size();
    if (XML_Parse(p, xml.data() + off, static_cast<int>(n), last) == XML_STATUS_ERROR) {
      ok = false;
      break;
    }
    off += n;
  } while (off < xml.size());
  std::string msg;
  if (!ok) {
    msg = where + ":" + std::to_string(XML_GetCurrentLineNumber(p)) + ": ";
    msg += state.error.empty() ? std::string(XML_ErrorString(XML_GetErrorCode(p))) : state.error;
  }
  XML_ParserFree(p);
  if (!ok) return Error(msg);
  return Ok{};
}

struct StateBase {
  XML_Parser parser = nullptr;
  std::string error;
  void fail(const std::string& msg) {
    if (error.empty()) error = msg;
    XML_StopParser(parser, XML_FALSE);
  }
};

std::string lower_hex(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'F') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

bool parse_u64(const std::string& s, uint64_t& out) {
  if (s.empty() || s.size() > 19) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (!is_digit(c)) return false;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  out = v;
  return true;
}

}  // namespace

// ---- repomd.xml -----------------------------------------------------------

namespace {
struct RepomdState : StateBase {
  bool in_primary = false;
  bool found = false;
  std::string field;  // "checksum" or "size" while inside one
  std::string text;
  RepomdPrimary out;
};
}  // namespace

Expected<RepomdPrimary> parse_repomd(std::string_view xml, const std::string& where) {
  RepomdState st;
  auto start = [](void* ud, const XML_Char* name, const XML_Char** atts) {
    auto* s = static_cast<RepomdState*>(ud);
    std::string_view n = local_name(name);
    if (n == "data") {
      s->in_primary = attr_s(atts, "type") == "primary" && !s->found;
      if (s->in_primary) s->found = true;
    } else if (s->in_primary && n == "location") {
      s->out.location = attr_s(atts, "href");
    } else if (s->in_primary && (n == "checksum" || n == "size")) {
      s->field = std::string(n);
      s->text.clear();
      if (n == "checksum") s->out.checksum_type = attr_s(atts, "type");
    }
  };
  auto end = [](void* ud, const XML_Char* name) {
    auto* s = static_cast<RepomdState*>(ud);
    std::string_view n = local_name(name);
    if (n == "data") s->in_primary = false;
    if (!s->field.empty() && n == s->field) {
      std::string t = s->text;
      t.erase(0, t.find_first_not_of(" \t\r\n"));
      t.erase(t.find_last_not_of(" \t\r\n") + 1);
      if (n == "checksum") s->out.checksum = lower_hex(t);
      if (n == "size" && !parse_u64(t, s->out.size)) s->fail("primary <size> is not a number: '" + t + "'");
      s->field.clear();
    }
  };
  auto text = [](void* ud, const XML_Char* t, int len) {
    auto* s = static_cast<RepomdState*>(ud);
    if (!s->field.empty() && s->text.size() < 4096) s->text.append(t, static_cast<size_t>(len));
  };
  Status ok = run_expat(xml, where, st, start, end, text);
  if (!ok) return ok.error();
  if (!st.found) return Error(where + ": no <data type=\"primary\"> entry");
  if (st.out.location.empty()) return Error(where + ": primary entry has no <location href>");
  if (st.out.checksum.empty() || st.out.checksum_type.empty())
    return Error(where + ": primary entry has no <checksum type=...>");
  return st.out;
}

// ---- decompression --------------------------------------------------------

Expected<std::string> decompress_metadata(std::string_view data, const std::string& where, uint64_t max_bytes) {
  struct archive* a = archive_read_new();
  if (!a) return Error(where + ": cannot initialise libarchive");
  archive_read_support_filter_all(a);
  archive_read_support_format_raw(a);
  auto fail = [&](const std::string& what) -> Expected<std::string> {
    const char* e = archive_error_string(a);
    std::string msg = where + ": " + what + (e ? std::string(": ") + e : std::string());
    archive_read_free(a);
    return Error(msg);
  };
  if (data.empty()) {
    archive_read_free(a);
    return Error(where + ": empty file");
  }
  if (archive_read_open_memory(a, data.data(), data.size()) != ARCHIVE_OK) return fail("cannot open");
  struct archive_entry* entry = nullptr;
  if (archive_read_next_header(a, &entry) != ARCHIVE_OK) return fail("cannot read");
  std::string out;
  char buf[1 << 16];
  for (;;) {
    la_ssize_t n = archive_read_data(a, buf, sizeof buf);
    if (n < 0) return fail("corrupt compressed data");
    if (n == 0) break;
    if (out.size() + static_cast<uint64_t>(n) > max_bytes)
      return fail("decompresses to more than " + std::to_string(max_bytes) + " bytes");
    out.append(buf, static_cast<size_t>(n));
  }
  archive_read_free(a);
  return out;
}

// ---- primary.xml ----------------------------------------------------------

namespace {
struct PrimaryState : StateBase {
  std::vector<Package> out;
  bool in_package = false;
  Package pkg;
  int deps = 0;  // 1 = inside rpm:provides, 2 = inside rpm:requires
  std::string field;  // element whose text we collect: name, arch, checksum, file
  std::string text;

  void begin_package() {
    pkg = Package{};
    in_package = true;
  }
  void end_package() {
    in_package = false;
    const char* missing = pkg.name.empty()               ? "<name>"
                          : pkg.arch.empty()             ? "<arch>"
                          : pkg.evr.version.empty()      ? "<version ver>"
                          : pkg.location.empty()         ? "<location href>"
                                                         : nullptr;
    if (missing) {
      fail(std::string("package ") + (pkg.name.empty() ? "?" : pkg.name) + " has no " + missing);
      return;
    }
    out.push_back(std::move(pkg));
  }
};

DepFlags parse_flags(const std::string& f, bool& ok) {
  ok = true;
  if (f.empty()) return DepFlags::kAny;
  if (f == "EQ") return DepFlags::kEq;
  if (f == "LT") return DepFlags::kLt;
  if (f == "LE") return DepFlags::kLe;
  if (f == "GT") return DepFlags::kGt;
  if (f == "GE") return DepFlags::kGe;
  ok = false;
  return DepFlags::kAny;
}
}  // namespace

Expected<std::vector<Package>> parse_primary(std::string_view xml, const std::string& where) {
  PrimaryState st;
  auto start = [](void* ud, const XML_Char* name, const XML_Char** atts) {
    auto* s = static_cast<PrimaryState*>(ud);
    std::string_view n = local_name(name);
    if (n == "package") {
      if (s->in_package) return s->fail("nested <package>");
      std::string type = attr_s(atts, "type");
      if (type.empty() || type == "rpm") s->begin_package();
      return;
    }
    if (!s->in_package) return;
    Package& p = s->pkg;
    if (n == "name" || n == "arch" || (n == "checksum" && s->deps == 0) || n == "file") {
      s->field = std::string(n);
      s->text.clear();
      if (n == "checksum") p.checksum_type = attr_s(atts, "type");
      if (n == "file" && attr_s(atts, "type") == "dir") s->field.clear();  // directories provide nothing we use
    } else if (n == "version") {
      p.evr.epoch = attr_s(atts, "epoch");
      p.evr.version = attr_s(atts, "ver");
      p.evr.release = attr_s(atts, "rel");
    } else if (n == "size") {
      std::string v = attr_s(atts, "package");
      if (!v.empty() && !parse_u64(v, p.size))
        s->fail("package " + p.name + ": <size package> is not a number: '" + v + "'");
    } else if (n == "location") {
      p.location = attr_s(atts, "href");
    } else if (n == "provides") {
      s->deps = 1;
    } else if (n == "requires") {
      s->deps = 2;
    } else if (n == "entry" && s->deps != 0) {
      Dependency d;
      d.name = attr_s(atts, "name");
      bool ok = true;
      d.flags = parse_flags(attr_s(atts, "flags"), ok);
      if (!ok) return s->fail("package " + p.name + ": unknown flags '" + attr_s(atts, "flags") + "'");
      d.evr.epoch = attr_s(atts, "epoch");
      d.evr.version = attr_s(atts, "ver");
      d.evr.release = attr_s(atts, "rel");
      d.pre = attr_s(atts, "pre") == "1";
      if (d.name.empty()) return s->fail("package " + p.name + ": rpm:entry without a name");
      if (d.flags != DepFlags::kAny && d.evr.version.empty())
        return s->fail("package " + p.name + ": versioned entry " + d.name + " has no ver");
      (s->deps == 1 ? p.provides : p.requires_).push_back(std::move(d));
    }
  };
  auto end = [](void* ud, const XML_Char* name) {
    auto* s = static_cast<PrimaryState*>(ud);
    std::string_view n = local_name(name);
    if (!s->in_package) return;
    if (n == "package") return s->end_package();
    if (n == "provides" || n == "requires") s->deps = 0;
    if (!s->field.empty() && n == s->field) {
      Package& p = s->pkg;
      if (n == "name") p.name = s->text;
      if (n == "arch") p.arch = s->text;
      if (n == "checksum") p.checksum = lower_hex(s->text);
      if (n == "file") p.files.push_back(s->text);
      s->field.clear();
    }
  };
  auto text = [](void* ud, const XML_Char* t, int len) {
    auto* s = static_cast<PrimaryState*>(ud);
    if (s->field.empty()) return;
    if (s->text.size() + static_cast<size_t>(len) > 65536) return s->fail("<" + s->field + "> text too long");
    s->text.append(t, static_cast<size_t>(len));
  };
  Status ok = run_expat(xml, where, st, start, end, text);
  if (!ok) return ok.error();
  return std::move(st.out);
}

// ---- loading a repository -------------------------------------------------

namespace {
constexpr uint64_t kMaxRepomd = 16ull << 20;     // repomd.xml is a few KiB
constexpr uint64_t kMaxPrimary = 1ull << 30;     // NVIDIA's rhel8 primary: tens of MB compressed
constexpr uint64_t kMaxPrimaryXml = 4ull << 30;  // and a few hundred MB of XML

std::string to_hex(const std::string& raw) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (unsigned char c : raw) {
    out.push_back(digits[c >> 4]);
    out.push_back(digits[c & 15]);
  }
  return out;
}
}  // namespace

Expected<Repository> load_repository(const std::string& base) {
  std::string repomd_url = join_url(base, "repodata/repomd.xml");
  auto repomd_xml = http_get(repomd_url, kMaxRepomd);
  if (!repomd_xml) return repomd_xml.error();
  auto primary = parse_repomd(*repomd_xml, repomd_url);
  if (!primary) return primary.error();
  if (primary->location.find("..") != std::string::npos || primary->location.find("://") != std::string::npos)
    return Error(repomd_url + ": primary location '" + primary->location + "' leaves the repository");
  std::string primary_url = join_url(base, primary->location);
  auto digest = Digest::create(primary->checksum_type);
  if (!digest)
    return Error(repomd_url + ": primary checksum type '" + primary->checksum_type +
                 "' is not supported (sha256, sha384, sha512)");
  auto stored = http_get(primary_url, kMaxPrimary);
  if (!stored) return stored.error();
  if (primary->size != 0 && stored->size() != primary->size)
    return Error(primary_url + ": size " + std::to_string(stored->size()) + ", repomd.xml says " +
                 std::to_string(primary->size));
  digest->update(ByteView(reinterpret_cast<const uint8_t*>(stored->data()), stored->size()));
  std::string got = to_hex(digest->finish());
  if (got != primary->checksum)
    return Error(primary_url + ": " + primary->checksum_type + " checksum mismatch: repomd.xml says " +
                 primary->checksum + ", file has " + got);
  auto xml = decompress_metadata(*stored, primary_url, kMaxPrimaryXml);
  if (!xml) return xml.error();
  stored->clear();
  stored->shrink_to_fit();
  auto packages = parse_primary(*xml, primary_url);
  if (!packages) return packages.error();
  Repository repo;
  repo.base = base;
  repo.primary_location = primary->location;
  repo.packages = std::move(*packages);
  return repo;
}

}  // namespace cuwheel::toolkit
