// RPM versions and repository metadata (repomd.xml, primary.xml,
// filelists.xml) for `cuwheel toolkit lock`; see
// include/cuwheel/toolkit/repo.h.
#include <archive.h>
#include <expat.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "cuwheel/base/digest.h"
#include "cuwheel/toolkit/http.h"
#include "cuwheel/toolkit/repo.h"

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

// One expat parser with `state` as user data, fed piece by piece (a whole
// document, or a stream as it is decompressed). Refuses DOCTYPE
// declarations, so no entity can be defined or expanded.
template <class State>
class Expat {
 public:
  Expat(State& state, XML_StartElementHandler start, XML_EndElementHandler end, XML_CharacterDataHandler text)
      : state_(state), p_(XML_ParserCreateNS(nullptr, kNsSep)) {
    if (!p_) return;
    state.parser = p_;
    XML_SetUserData(p_, &state);
    XML_SetElementHandler(p_, start, end);
    XML_SetCharacterDataHandler(p_, text);
    XML_SetStartDoctypeDeclHandler(p_, [](void* ud, const XML_Char*, const XML_Char*, const XML_Char*, int) {
      static_cast<State*>(ud)->fail("DOCTYPE declarations are not allowed in repository metadata");
    });
  }
  ~Expat() {
    if (p_) XML_ParserFree(p_);
  }
  Expat(const Expat&) = delete;
  Expat& operator=(const Expat&) = delete;

  bool created() const { return p_ != nullptr; }

  // Parses `piece` in slices of at most 1 MiB (XML_Parse takes an int
  // length); `last` marks the end of the document. False on an error.
  bool feed(std::string_view piece, bool last) {
    constexpr size_t kSlice = 1 << 20;
    do {
      size_t n = std::min(kSlice, piece.size());
      bool fin = last && n == piece.size();
      if (XML_Parse(p_, piece.data(), static_cast<int>(n), fin) == XML_STATUS_ERROR) return false;
      piece.remove_prefix(n);
    } while (!piece.empty());
    return true;
  }

  // "where:LINE: message" for the error that stopped feed().
  std::string message(const std::string& where) const {
    return where + ":" + std::to_string(XML_GetCurrentLineNumber(p_)) + ": " +
           (state_.error.empty() ? std::string(XML_ErrorString(XML_GetErrorCode(p_))) : state_.error);
  }

 private:
  State& state_;
  XML_Parser p_;
};

// Parses the whole document `xml` with `state` as user data.
template <class State>
Status run_expat(std::string_view xml, const std::string& where, State& state, XML_StartElementHandler start,
                 XML_EndElementHandler end, XML_CharacterDataHandler text) {
  Expat<State> parser(state, start, end, text);
  if (!parser.created()) return Error(where + ": cannot create an XML parser");
  if (!parser.feed(xml, true)) return Error(parser.message(where));
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
  // The <data> entry being read: 1 = primary, 2 = filelists, 0 = another
  // (or a repeated one: the first of each type counts).
  int in_data = 0;
  bool seen[3] = {false, false, false};
  std::string field;  // "checksum" or "size" while inside one
  std::string text;
  RepomdEntry entries[3];
};

const char* const kDataType[3] = {"", "primary", "filelists"};

// Checks one entry repomd.xml gives; `type` names it in messages.
Status check_entry(const RepomdEntry& e, const char* type, const std::string& where) {
  if (e.location.empty()) return Error(where + ": " + type + " entry has no <location href>");
  if (e.checksum.empty() || e.checksum_type.empty())
    return Error(where + ": " + type + " entry has no <checksum type=...>");
  return Ok{};
}
}  // namespace

Expected<Repomd> parse_repomd(std::string_view xml, const std::string& where) {
  RepomdState st;
  auto start = [](void* ud, const XML_Char* name, const XML_Char** atts) {
    auto* s = static_cast<RepomdState*>(ud);
    std::string_view n = local_name(name);
    if (n == "data") {
      std::string type = attr_s(atts, "type");
      s->in_data = type == "primary" ? 1 : type == "filelists" ? 2 : 0;
      if (s->in_data != 0 && s->seen[s->in_data]) s->in_data = 0;
      if (s->in_data != 0) s->seen[s->in_data] = true;
      return;
    }
    if (s->in_data == 0) return;
    RepomdEntry& e = s->entries[s->in_data];
    if (n == "location") {
      e.location = attr_s(atts, "href");
    } else if (n == "checksum" || n == "size") {
      s->field = std::string(n);
      s->text.clear();
      if (n == "checksum") e.checksum_type = attr_s(atts, "type");
    }
  };
  auto end = [](void* ud, const XML_Char* name) {
    auto* s = static_cast<RepomdState*>(ud);
    std::string_view n = local_name(name);
    if (n == "data") s->in_data = 0;
    if (s->field.empty() || n != s->field) return;
    if (s->in_data != 0) {
      RepomdEntry& e = s->entries[s->in_data];
      std::string t = s->text;
      t.erase(0, t.find_first_not_of(" \t\r\n"));
      t.erase(t.find_last_not_of(" \t\r\n") + 1);
      if (n == "checksum") e.checksum = lower_hex(t);
      if (n == "size" && !parse_u64(t, e.size))
        s->fail(std::string(kDataType[s->in_data]) + " <size> is not a number: '" + t + "'");
    }
    s->field.clear();
  };
  auto text = [](void* ud, const XML_Char* t, int len) {
    auto* s = static_cast<RepomdState*>(ud);
    if (!s->field.empty() && s->text.size() < 4096) s->text.append(t, static_cast<size_t>(len));
  };
  Status ok = run_expat(xml, where, st, start, end, text);
  if (!ok) return ok.error();
  if (!st.seen[1]) return Error(where + ": no <data type=\"primary\"> entry");
  Repomd out;
  for (int i : {1, 2}) {
    if (!st.seen[i]) continue;
    if (Status c = check_entry(st.entries[i], kDataType[i], where); !c) return c.error();
  }
  out.primary = std::move(st.entries[1]);
  if (st.seen[2]) out.filelists = std::move(st.entries[2]);
  return out;
}

// ---- decompression --------------------------------------------------------

namespace {

// Decompresses `data` (any filter libarchive detects, or none) and hands
// the output to `sink` in pieces of at most 64 KiB, as it is produced.
// Stops at the first error: libarchive's (corrupt or truncated stream),
// more than `max_bytes` of output, or the one `sink` returns.
template <class Sink>
Status stream_metadata(std::string_view data, const std::string& where, uint64_t max_bytes, Sink&& sink) {
  if (data.empty()) return Error(where + ": empty file");
  struct archive* a = archive_read_new();
  if (!a) return Error(where + ": cannot initialise libarchive");
  archive_read_support_filter_all(a);
  archive_read_support_format_raw(a);
  auto fail = [&](const std::string& what) -> Status {
    const char* e = archive_error_string(a);
    std::string msg = where + ": " + what + (e ? std::string(": ") + e : std::string());
    archive_read_free(a);
    return Error(msg);
  };
  if (archive_read_open_memory(a, data.data(), data.size()) != ARCHIVE_OK) return fail("cannot open");
  struct archive_entry* entry = nullptr;
  if (archive_read_next_header(a, &entry) != ARCHIVE_OK) return fail("cannot read");
  uint64_t total = 0;
  std::vector<char> buf(size_t{1} << 16);
  for (;;) {
    la_ssize_t n = archive_read_data(a, buf.data(), buf.size());
    if (n < 0) return fail("corrupt compressed data");
    if (n == 0) break;
    total += static_cast<uint64_t>(n);
    if (total > max_bytes) return fail("decompresses to more than " + std::to_string(max_bytes) + " bytes");
    if (Status st = sink(std::string_view(buf.data(), static_cast<size_t>(n))); !st) {
      archive_read_free(a);
      return st;
    }
  }
  archive_read_free(a);
  return Ok{};
}

}  // namespace

Expected<std::string> decompress_metadata(std::string_view data, const std::string& where, uint64_t max_bytes) {
  std::string out;
  Status st = stream_metadata(data, where, max_bytes, [&](std::string_view piece) -> Status {
    out.append(piece);
    return Ok{};
  });
  if (!st) return st.error();
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

// ---- filelists.xml ----------------------------------------------------------

namespace {
struct FilelistsState : StateBase {
  const std::unordered_set<std::string>* wanted = nullptr;
  std::vector<FilelistsPackage> out;
  bool in_package = false;
  bool have_version = false;
  bool in_file = false;
  FilelistsPackage pkg;
  std::string text;  // the path of the <file> being read; its capacity is reused
};
}  // namespace

Expected<std::vector<FilelistsPackage>> parse_filelists(std::string_view stored, const std::string& where,
                                                        const std::vector<std::string>& wanted,
                                                        uint64_t max_xml_bytes) {
  std::unordered_set<std::string> want(wanted.begin(), wanted.end());
  FilelistsState st;
  st.wanted = &want;
  auto start = [](void* ud, const XML_Char* name, const XML_Char** atts) {
    auto* s = static_cast<FilelistsState*>(ud);
    std::string_view n = local_name(name);
    if (n == "package") {
      if (s->in_package) return s->fail("nested <package>");
      s->pkg = FilelistsPackage{};
      s->pkg.pkgid = lower_hex(attr_s(atts, "pkgid"));
      s->pkg.name = attr_s(atts, "name");
      s->pkg.arch = attr_s(atts, "arch");
      s->pkg.line = XML_GetCurrentLineNumber(s->parser);
      const char* missing = s->pkg.pkgid.empty() ? "pkgid" : s->pkg.name.empty() ? "name" : s->pkg.arch.empty() ? "arch" : nullptr;
      if (missing)
        return s->fail("package " + (s->pkg.name.empty() ? std::string("?") : s->pkg.name) + " has no " + missing +
                       " attribute");
      s->in_package = true;
      s->have_version = false;
      return;
    }
    if (!s->in_package) return;
    if (n == "version") {
      s->pkg.evr.epoch = attr_s(atts, "epoch");
      s->pkg.evr.version = attr_s(atts, "ver");
      s->pkg.evr.release = attr_s(atts, "rel");
      s->have_version = !s->pkg.evr.version.empty();
    } else if (n == "file") {
      // Files, directories (type="dir") and ghosts alike: rpm's file
      // provides cover every path a package owns.
      s->in_file = true;
      s->text.clear();
    }
  };
  auto end = [](void* ud, const XML_Char* name) {
    auto* s = static_cast<FilelistsState*>(ud);
    if (!s->in_package) return;
    std::string_view n = local_name(name);
    if (n == "file" && s->in_file) {
      s->in_file = false;
      if (s->wanted->count(s->text) && std::find(s->pkg.files.begin(), s->pkg.files.end(), s->text) == s->pkg.files.end())
        s->pkg.files.push_back(s->text);
    } else if (n == "package") {
      s->in_package = false;
      if (!s->have_version) return s->fail("package " + s->pkg.name + " has no <version ver>");
      if (!s->pkg.files.empty()) s->out.push_back(std::move(s->pkg));
    }
  };
  auto text = [](void* ud, const XML_Char* t, int len) {
    auto* s = static_cast<FilelistsState*>(ud);
    if (!s->in_file) return;
    if (s->text.size() + static_cast<size_t>(len) > 65536)
      return s->fail("package " + s->pkg.name + ": <file> path longer than 65536 bytes");
    s->text.append(t, static_cast<size_t>(len));
  };
  Expat<FilelistsState> parser(st, start, end, text);
  if (!parser.created()) return Error(where + ": cannot create an XML parser");
  Status streamed = stream_metadata(stored, where, max_xml_bytes, [&](std::string_view piece) -> Status {
    if (!parser.feed(piece, false)) return Error(parser.message(where));
    return Ok{};
  });
  if (!streamed) return streamed.error();
  if (!parser.feed({}, true)) return Error(parser.message(where));
  return std::move(st.out);
}

// ---- loading a repository -------------------------------------------------

namespace {
constexpr uint64_t kMaxRepomd = 16ull << 20;     // repomd.xml is a few KiB
constexpr uint64_t kMaxStored = 1ull << 30;      // NVIDIA's rhel8 primary: tens of MB compressed
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

struct StoredFile {
  std::string url;
  std::string bytes;
};

// Fetches the metadata file repomd.xml's entry `e` (of type `type`) names
// and checks its size and checksum against the entry, before anything
// decompresses or parses it.
Expected<StoredFile> fetch_checked(const std::string& base, const RepomdEntry& e, const char* type) {
  std::string repomd_url = join_url(base, "repodata/repomd.xml");
  if (e.location.find("..") != std::string::npos || e.location.find("://") != std::string::npos)
    return Error(repomd_url + ": " + type + " location '" + e.location + "' leaves the repository");
  StoredFile f;
  f.url = join_url(base, e.location);
  auto digest = Digest::create(e.checksum_type);
  if (!digest)
    return Error(repomd_url + ": " + type + " checksum type '" + e.checksum_type +
                 "' is not supported (sha256, sha384, sha512)");
  auto stored = http_get(f.url, kMaxStored);
  if (!stored) return stored.error();
  if (e.size != 0 && stored->size() != e.size)
    return Error(f.url + ": size " + std::to_string(stored->size()) + ", repomd.xml says " + std::to_string(e.size));
  digest->update(ByteView(reinterpret_cast<const uint8_t*>(stored->data()), stored->size()));
  std::string got = to_hex(digest->finish());
  if (got != e.checksum)
    return Error(f.url + ": " + e.checksum_type + " checksum mismatch: repomd.xml says " + e.checksum +
                 ", file has " + got);
  f.bytes = std::move(*stored);
  return f;
}

std::string nevra(const std::string& name, const Evr& evr, const std::string& arch) {
  return name + "-" + format_evr(evr) + "." + arch;
}
}  // namespace

Expected<Repository> load_repository(const std::string& base) {
  std::string repomd_url = join_url(base, "repodata/repomd.xml");
  auto repomd_xml = http_get(repomd_url, kMaxRepomd);
  if (!repomd_xml) return repomd_xml.error();
  auto repomd = parse_repomd(*repomd_xml, repomd_url);
  if (!repomd) return repomd.error();
  auto stored = fetch_checked(base, repomd->primary, "primary");
  if (!stored) return stored.error();
  auto xml = decompress_metadata(stored->bytes, stored->url, kMaxPrimaryXml);
  if (!xml) return xml.error();
  stored->bytes.clear();
  stored->bytes.shrink_to_fit();
  auto packages = parse_primary(*xml, stored->url);
  if (!packages) return packages.error();
  Repository repo;
  repo.base = base;
  repo.primary_location = repomd->primary.location;
  repo.filelists = repomd->filelists;
  repo.packages = std::move(*packages);
  return repo;
}

Expected<FilelistsRead> load_filelists(Repository& repo, const std::vector<std::string>& wanted,
                                       uint64_t max_xml_bytes) {
  if (!repo.filelists)
    return Error(join_url(repo.base, "repodata/repomd.xml") + ": no <data type=\"filelists\"> entry");
  auto stored = fetch_checked(repo.base, *repo.filelists, "filelists");
  if (!stored) return stored.error();
  auto listed = parse_filelists(stored->bytes, stored->url, wanted, max_xml_bytes);
  if (!listed) return listed.error();

  // Match every package that lists a wanted path to its primary.xml entry
  // first, so that `repo` changes only when all of them match.
  std::unordered_multimap<std::string, size_t> by_pkgid;
  for (size_t i = 0; i < repo.packages.size(); ++i) by_pkgid.emplace(repo.packages[i].checksum, i);
  std::vector<std::pair<size_t, const FilelistsPackage*>> matches;
  for (const FilelistsPackage& fp : *listed) {
    auto [first, last] = by_pkgid.equal_range(fp.pkgid);
    std::optional<size_t> hit;
    std::string other;
    for (auto it = first; it != last && !hit; ++it) {
      const Package& p = repo.packages[it->second];
      if (p.name == fp.name && p.arch == fp.arch && format_evr(p.evr) == format_evr(fp.evr))
        hit = it->second;
      else
        other = nevra(p.name, p.evr, p.arch);
    }
    if (!hit) {
      std::string msg = stored->url + ":" + std::to_string(fp.line) + ": package " + nevra(fp.name, fp.evr, fp.arch) +
                        " (pkgid " + fp.pkgid + ") is not in primary.xml";
      if (!other.empty()) msg += "; primary.xml gives that pkgid to " + other;
      return Error(msg);
    }
    matches.emplace_back(*hit, &fp);
  }

  FilelistsRead out;
  out.needed = true;
  out.read = true;
  out.location = repo.filelists->location;
  out.wanted = wanted;
  std::sort(out.wanted.begin(), out.wanted.end());
  out.wanted.erase(std::unique(out.wanted.begin(), out.wanted.end()), out.wanted.end());
  std::set<std::string> found;
  for (const auto& [i, fp] : matches) {
    std::vector<std::string>& files = repo.packages[i].files;
    for (const std::string& f : fp->files) {
      found.insert(f);
      if (std::find(files.begin(), files.end(), f) == files.end()) files.push_back(f);
    }
  }
  out.found.assign(found.begin(), found.end());
  return out;
}

}  // namespace cuwheel::toolkit
