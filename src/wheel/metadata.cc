// Wheel metadata files: file name, METADATA, WHEEL, RECORD, entry points,
// and the .dist-info directory. See include/cuwheel/wheel/metadata.h for the
// specs followed.
#include "cuwheel/wheel/metadata.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "cuwheel/base/digest.h"
#include "cuwheel/wheel/pep440.h"
#include "cuwheel/wheel/pep508.h"

namespace cuwheel {

namespace {

std::string_view as_text(ByteView data) {
  return std::string_view(reinterpret_cast<const char*>(data.data()), data.size());
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

std::string_view trim(std::string_view s) {
  auto sp = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!s.empty() && sp(s.front())) s.remove_prefix(1);
  while (!s.empty() && sp(s.back())) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (;;) {
    size_t p = s.find(sep, start);
    out.push_back(s.substr(start, p == std::string_view::npos ? s.npos : p - start));
    if (p == std::string_view::npos) break;
    start = p + 1;
  }
  return out;
}

// Splits text into lines at LF, dropping a CR before it. Each line keeps its
// 1-based number.
struct Line {
  std::string_view text;
  uint32_t number;
  size_t end;  // offset just past the line terminator
};
std::vector<Line> lines_of(std::string_view s) {
  std::vector<Line> out;
  size_t start = 0;
  uint32_t n = 1;
  while (start < s.size()) {
    size_t nl = s.find('\n', start);
    size_t end = nl == std::string_view::npos ? s.size() : nl;
    std::string_view line = s.substr(start, end - start);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    size_t next = nl == std::string_view::npos ? s.size() : nl + 1;
    out.push_back({line, n++, next});
    start = next;
  }
  return out;
}

bool is_field_name_char(char c) { return c > 32 && c < 127 && c != ':'; }

// "N.N" with decimal numbers; false otherwise.
bool parse_major_minor(std::string_view v, uint64_t& major, uint64_t& minor) {
  auto parts = split(trim(v), '.');
  if (parts.size() != 2) return false;
  uint64_t* outs[2] = {&major, &minor};
  for (int i = 0; i < 2; ++i) {
    if (parts[i].empty() || parts[i].size() > 9) return false;
    uint64_t n = 0;
    for (char c : parts[i]) {
      if (c < '0' || c > '9') return false;
      n = n * 10 + static_cast<uint64_t>(c - '0');
    }
    *outs[i] = n;
  }
  return true;
}

}  // namespace

// ---------------------------------------------------------------------------
// Wheel file name

Expected<WheelFilename> WheelFilename::parse(std::string_view filename) {
  size_t slash = filename.find_last_of('/');
  std::string_view base = slash == std::string_view::npos ? filename : filename.substr(slash + 1);
  auto fail = [&](std::string_view why) {
    return Error("invalid wheel file name '" + printable(base) + "': " + std::string(why));
  };
  if (base.size() < 4 || base.substr(base.size() - 4) != ".whl") return fail("does not end in .whl");
  auto parts = split(base.substr(0, base.size() - 4), '-');
  if (parts.size() != 5 && parts.size() != 6)
    return fail("expected {name}-{version}(-{build})?-{python}-{abi}-{platform}.whl, got " +
                std::to_string(parts.size()) + " '-'-separated parts");
  for (auto p : parts)
    if (p.empty()) return fail("empty part");
  WheelFilename w;
  w.distribution = std::string(parts[0]);
  if (!is_valid_name(w.distribution)) return fail("invalid distribution name");
  w.version = std::string(parts[1]);
  size_t t = 2;
  if (parts.size() == 6) {
    std::string_view b = parts[2];
    if (!std::isdigit(static_cast<unsigned char>(b[0]))) return fail("build tag must start with a digit");
    size_t i = 0;
    uint64_t n = 0;
    bool overflow = false;
    while (i < b.size() && std::isdigit(static_cast<unsigned char>(b[i]))) {
      if (mul_overflow(n, 10, n) || add_overflow(n, static_cast<uint64_t>(b[i] - '0'), n)) overflow = true;
      ++i;
    }
    if (overflow) return fail("build number too large");
    w.build = std::string(b);
    w.build_number = n;
    w.build_suffix = std::string(b.substr(i));
    t = 3;
  }
  std::vector<std::string>* sets[3] = {&w.python_tags, &w.abi_tags, &w.platform_tags};
  for (int k = 0; k < 3; ++k) {
    for (auto tag : split(parts[t + k], '.')) {
      if (tag.empty()) return fail("empty tag in a compressed tag set");
      sets[k]->emplace_back(tag);
    }
  }
  return w;
}

std::vector<WheelTag> WheelFilename::tags() const {
  std::vector<WheelTag> out;
  for (const auto& py : python_tags)
    for (const auto& abi : abi_tags)
      for (const auto& plat : platform_tags) out.push_back({py, abi, plat});
  return out;
}

// ---------------------------------------------------------------------------
// Header files

HeaderFile HeaderFile::parse(ByteView data, std::string_view what, WarningSink& warnings) {
  HeaderFile hf;
  std::string_view text = as_text(data);
  auto lines = lines_of(text);
  bool have_field = false;
  for (size_t i = 0; i < lines.size(); ++i) {
    const Line& ln = lines[i];
    if (ln.text.empty()) {
      // End of headers: the rest, verbatim, is the body.
      hf.body = std::string(text.substr(ln.end));
      break;
    }
    if (ln.text[0] == ' ' || ln.text[0] == '\t') {
      if (!have_field) {
        warnings.warn(std::string(what) + " line " + std::to_string(ln.number) +
                      ": continuation line before any field; skipped");
        continue;
      }
      std::string& v = hf.fields.back().value;
      v += '\n';
      v += ln.text;
      while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.pop_back();
      continue;
    }
    size_t colon = ln.text.find(':');
    std::string_view name = colon == std::string_view::npos ? std::string_view() : ln.text.substr(0, colon);
    if (name.empty() || !std::all_of(name.begin(), name.end(), is_field_name_char)) {
      warnings.warn(std::string(what) + " line " + std::to_string(ln.number) +
                    ": not a 'Name: value' header line; skipped");
      have_field = false;
      continue;
    }
    HeaderField f;
    f.name = std::string(name);
    f.value = std::string(trim(ln.text.substr(colon + 1)));
    f.line = ln.number;
    hf.fields.push_back(std::move(f));
    have_field = true;
  }
  return hf;
}

const std::string* HeaderFile::get(std::string_view name) const {
  for (const auto& f : fields)
    if (iequals(f.name, name)) return &f.value;
  return nullptr;
}

std::vector<std::string> HeaderFile::get_all(std::string_view name) const {
  std::vector<std::string> out;
  for (const auto& f : fields)
    if (iequals(f.name, name)) out.push_back(f.value);
  return out;
}

// ---------------------------------------------------------------------------
// METADATA

Expected<CoreMetadata> CoreMetadata::parse(ByteView data, std::string_view what,
                                           WarningSink& warnings) {
  CoreMetadata m;
  m.raw = HeaderFile::parse(data, what, warnings);
  const std::string w(what);

  using Single = std::optional<std::string> CoreMetadata::*;
  using Multi = std::vector<std::string> CoreMetadata::*;
  static const std::pair<const char*, Single> kSingle[] = {
      {"summary", &CoreMetadata::summary},
      {"description", &CoreMetadata::description},
      {"description-content-type", &CoreMetadata::description_content_type},
      {"keywords", &CoreMetadata::keywords},
      {"home-page", &CoreMetadata::home_page},
      {"download-url", &CoreMetadata::download_url},
      {"author", &CoreMetadata::author},
      {"author-email", &CoreMetadata::author_email},
      {"maintainer", &CoreMetadata::maintainer},
      {"maintainer-email", &CoreMetadata::maintainer_email},
      {"license", &CoreMetadata::license},
      {"license-expression", &CoreMetadata::license_expression},
      {"requires-python", &CoreMetadata::requires_python},
  };
  static const std::pair<const char*, Multi> kMulti[] = {
      {"platform", &CoreMetadata::platforms},
      {"supported-platform", &CoreMetadata::supported_platforms},
      {"classifier", &CoreMetadata::classifiers},
      {"requires-dist", &CoreMetadata::requires_dist},
      {"requires-external", &CoreMetadata::requires_external},
      {"project-url", &CoreMetadata::project_urls},
      {"provides-extra", &CoreMetadata::provides_extra},
      {"provides-dist", &CoreMetadata::provides_dist},
      {"obsoletes-dist", &CoreMetadata::obsoletes_dist},
      {"license-file", &CoreMetadata::license_files},
      {"dynamic", &CoreMetadata::dynamic},
  };

  std::optional<std::string> mv, name, version;
  for (const auto& f : m.raw.fields) {
    std::string key = lower(f.name);
    auto where = w + " line " + std::to_string(f.line);
    std::optional<std::string>* slot = nullptr;
    if (key == "metadata-version") slot = &mv;
    else if (key == "name") slot = &name;
    else if (key == "version") slot = &version;
    for (const auto& [k, member] : kSingle)
      if (key == k) slot = &(m.*member);
    if (slot) {
      if (*slot) warnings.warn(where + ": field '" + printable(f.name) + "' repeated; first value kept");
      else *slot = f.value;
      continue;
    }
    for (const auto& [k, member] : kMulti)
      if (key == k) (m.*member).push_back(f.value);
  }
  if (!mv) return Error(w + ": missing Metadata-Version");
  if (!name) return Error(w + ": missing Name");
  if (!version) return Error(w + ": missing Version");
  m.metadata_version = *mv;
  m.name = *name;
  m.version = *version;

  static const char* kKnown[] = {"1.0", "1.1", "1.2", "2.1", "2.2", "2.3", "2.4"};
  bool known = std::any_of(std::begin(kKnown), std::end(kKnown),
                           [&](const char* k) { return m.metadata_version == k; });
  if (!known) {
    uint64_t maj = 0, min = 0;
    if (parse_major_minor(m.metadata_version, maj, min) && (maj > 2 || (maj == 2 && min > 4)))
      warnings.warn(w + ": Metadata-Version " + printable(m.metadata_version) +
                    " is newer than 2.4; read as 2.4");
    else
      warnings.warn(w + ": unknown Metadata-Version '" + printable(m.metadata_version) + "'");
  }
  if (m.raw.body) {
    bool body_has_text = !trim(*m.raw.body).empty();
    if (m.description && body_has_text)
      warnings.warn(w + ": both a Description field and a message body; the body is used");
    if (body_has_text || !m.description) m.description = *m.raw.body;
  }
  return m;
}

// ---------------------------------------------------------------------------
// WHEEL

Expected<WheelInfo> WheelInfo::parse(ByteView data, std::string_view what, WarningSink& warnings) {
  WheelInfo wi;
  const std::string w(what);
  wi.raw = HeaderFile::parse(data, what, warnings);
  const std::string* ver = wi.raw.get("Wheel-Version");
  if (!ver) return Error(w + ": missing Wheel-Version");
  uint64_t major = 0, minor = 0;
  if (!parse_major_minor(*ver, major, minor))
    return Error(w + ": Wheel-Version '" + printable(*ver) + "' is not N.N");
  if (major > 1)
    return Error(w + ": Wheel-Version " + printable(*ver) + " is not supported (major version above 1)");
  if (minor > 0) warnings.warn(w + ": Wheel-Version " + printable(*ver) + " is newer than 1.0");
  wi.wheel_version = *ver;
  if (const std::string* g = wi.raw.get("Generator")) wi.generator = *g;
  if (const std::string* b = wi.raw.get("Build")) wi.build = *b;
  if (const std::string* p = wi.raw.get("Root-Is-Purelib")) {
    std::string v = lower(*p);
    if (v == "true") wi.root_is_purelib = true;
    else if (v == "false") wi.root_is_purelib = false;
    else warnings.warn(w + ": Root-Is-Purelib is '" + printable(*p) + "', not true or false");
  } else {
    warnings.warn(w + ": missing Root-Is-Purelib");
  }
  wi.tags = wi.raw.get_all("Tag");
  if (wi.tags.empty()) warnings.warn(w + ": no Tag lines");
  for (const auto& t : wi.tags) {
    auto parts = split(t, '-');
    if (parts.size() != 3 || std::any_of(parts.begin(), parts.end(), [](auto p) { return p.empty(); }))
      warnings.warn(w + ": Tag '" + printable(t) + "' is not python-abi-platform");
  }
  return wi;
}

// ---------------------------------------------------------------------------
// RECORD

Record Record::parse(ByteView data, std::string_view what, WarningSink& warnings) {
  Record rec;
  const std::string w(what);
  std::string_view s = as_text(data);
  size_t i = 0;
  uint32_t line = 1;
  while (i < s.size()) {
    // Read one CSV record.
    uint32_t start_line = line;
    std::vector<std::string> fields(1);
    bool in_quotes = false;
    bool was_quoted = false;
    bool ended = false;
    while (i < s.size() && !ended) {
      char c = s[i++];
      if (in_quotes) {
        if (c == '"') {
          if (i < s.size() && s[i] == '"') {
            fields.back() += '"';
            ++i;
          } else {
            in_quotes = false;
          }
        } else {
          if (c == '\n') ++line;
          fields.back() += c;
        }
        continue;
      }
      switch (c) {
        case '"':
          if (fields.back().empty() && !was_quoted) {
            in_quotes = was_quoted = true;
          } else {
            fields.back() += c;  // a stray quote inside a field is literal
          }
          break;
        case ',':
          fields.emplace_back();
          was_quoted = false;
          break;
        case '\r':
          if (i < s.size() && s[i] == '\n') ++i;
          ++line;
          ended = true;
          break;
        case '\n':
          ++line;
          ended = true;
          break;
        default: fields.back() += c;
      }
    }
    if (in_quotes) warnings.warn(w + " line " + std::to_string(start_line) + ": unterminated quote");
    if (fields.size() == 1 && fields[0].empty() && !was_quoted) continue;  // blank line
    auto where = w + " line " + std::to_string(start_line);
    if (fields.size() != 3)
      warnings.warn(where + ": expected 3 fields (path,hash,size), got " + std::to_string(fields.size()));
    RecordEntry e;
    e.line = start_line;
    e.path = fields[0];
    if (e.path.empty()) {
      warnings.warn(where + ": empty path; row skipped");
      continue;
    }
    if (fields.size() > 1 && !fields[1].empty()) {
      size_t eq = fields[1].find('=');
      if (eq == std::string::npos) {
        warnings.warn(where + ": hash '" + printable(fields[1]) + "' is not algorithm=digest");
        e.hash_value = fields[1];
      } else {
        e.hash_algorithm = fields[1].substr(0, eq);
        e.hash_value = fields[1].substr(eq + 1);
      }
    }
    if (fields.size() > 2 && !fields[2].empty()) {
      const std::string& z = fields[2];
      bool digits = z.size() <= 20 && std::all_of(z.begin(), z.end(), [](char c) { return c >= '0' && c <= '9'; });
      uint64_t n = 0;
      bool overflow = false;
      if (digits)
        for (char c : z)
          if (mul_overflow(n, 10, n) || add_overflow(n, static_cast<uint64_t>(c - '0'), n)) overflow = true;
      if (!digits || overflow) warnings.warn(where + ": size '" + printable(z) + "' is not a byte count");
      else e.size = n;
    }
    rec.entries.push_back(std::move(e));
  }
  rec.index.reserve(rec.entries.size());
  for (size_t k = 0; k < rec.entries.size(); ++k) rec.index.emplace(rec.entries[k].path, k);
  rec.indexed = rec.entries.size();
  return rec;
}

const RecordEntry* Record::find(std::string_view path) const {
  // The first `indexed` entries are in the index; entries added after
  // parse() are scanned.
  const size_t from = std::min(indexed, entries.size());
  if (from) {
    auto it = index.find(std::string(path));
    if (it != index.end() && it->second < entries.size() && entries[it->second].path == path) return &entries[it->second];
  }
  for (size_t k = from; k < entries.size(); ++k)
    if (entries[k].path == path) return &entries[k];
  return nullptr;
}

Status verify_record_entry(const RecordEntry& entry, ByteView data) {
  const std::string where = "RECORD line " + std::to_string(entry.line) + " (" + printable(entry.path) + ")";
  if (entry.size && *entry.size != data.size())
    return Error(where + ": size mismatch: RECORD says " + std::to_string(*entry.size) +
                 " bytes, member has " + std::to_string(data.size()));
  if (entry.hash_algorithm.empty()) return Error(where + ": no hash");
  auto d = Digest::create(entry.hash_algorithm);
  if (!d) return d.error().context(where);
  auto expected = base64url_decode(entry.hash_value);
  if (!expected) return Error(where + ": digest '" + printable(entry.hash_value) + "' is not URL-safe base64");
  d->update(data);
  std::string got = d->finish();
  if (*expected != got) {
    ByteView gv(reinterpret_cast<const uint8_t*>(got.data()), got.size());
    return Error(where + ": " + entry.hash_algorithm + " mismatch: RECORD says " +
                 printable(entry.hash_value) + ", member has " + base64url_nopad(gv));
  }
  return Ok{};
}

// ---------------------------------------------------------------------------
// entry_points.txt

namespace {

bool is_ident_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' ||
         static_cast<unsigned char>(c) >= 0x80;  // \w in Python matches non-ASCII letters
}

// `module[:attr] [extra, ...]` (the PyPA entry points spec's object
// reference, as importlib.metadata's pattern reads it).
bool parse_object_ref(std::string_view v, EntryPoint& ep) {
  size_t i = 0;
  auto skip = [&] { while (i < v.size() && (v[i] == ' ' || v[i] == '\t')) ++i; };
  size_t start = i;
  while (i < v.size() && is_ident_char(v[i])) ++i;
  if (i == start) return false;
  ep.module = std::string(v.substr(start, i - start));
  skip();
  if (i < v.size() && v[i] == ':') {
    ++i;
    skip();
    start = i;
    while (i < v.size() && is_ident_char(v[i])) ++i;
    if (i == start) return false;
    ep.attr = std::string(v.substr(start, i - start));
    skip();
  }
  if (i < v.size() && v[i] == '[') {
    size_t close = v.find(']', i);
    if (close == std::string_view::npos) return false;
    for (auto x : split(v.substr(i + 1, close - i - 1), ',')) {
      x = trim(x);
      if (!x.empty()) ep.extras.emplace_back(x);
    }
    i = close + 1;
    skip();
  }
  return i == v.size();
}

}  // namespace

std::vector<EntryPoint> parse_entry_points(ByteView data, std::string_view what,
                                           WarningSink& warnings) {
  std::vector<EntryPoint> out;
  const std::string w(what);
  std::optional<std::string> group;
  std::set<std::pair<std::string, std::string>> seen;
  for (const Line& ln : lines_of(as_text(data))) {
    std::string_view t = trim(ln.text);
    auto where = w + " line " + std::to_string(ln.number);
    if (t.empty() || t[0] == '#' || t[0] == ';') continue;
    if (t.front() == '[') {
      if (t.back() != ']') {
        warnings.warn(where + ": unterminated section header");
        group.reset();
        continue;
      }
      group = std::string(trim(t.substr(1, t.size() - 2)));
      continue;
    }
    if (ln.text[0] == ' ' || ln.text[0] == '\t') {
      warnings.warn(where + ": continuation lines are not supported; skipped");
      continue;
    }
    if (!group) {
      warnings.warn(where + ": entry before any [section]; skipped");
      continue;
    }
    size_t eq = t.find_first_of("=:");
    if (eq == std::string_view::npos) {
      warnings.warn(where + ": expected 'name = object reference'");
      continue;
    }
    EntryPoint ep;
    ep.group = *group;
    ep.name = std::string(trim(t.substr(0, eq)));
    ep.line = ln.number;
    if (ep.name.empty()) {
      warnings.warn(where + ": empty entry point name");
      continue;
    }
    if (!parse_object_ref(trim(t.substr(eq + 1)), ep)) {
      warnings.warn(where + ": '" + printable(trim(t.substr(eq + 1))) +
                    "' is not an object reference (module[:attr] [extras])");
      continue;
    }
    if (!seen.insert({ep.group, ep.name}).second)
      warnings.warn(where + ": entry point '" + printable(ep.name) + "' repeated in [" +
                    printable(ep.group) + "]");
    out.push_back(std::move(ep));
  }
  return out;
}

// ---------------------------------------------------------------------------
// .dist-info

Expected<DistInfoLocation> locate_dist_info(const std::vector<std::string>& member_names,
                                            const WheelFilename* filename, std::string_view wheel) {
  constexpr std::string_view kSuffix = ".dist-info";
  std::set<std::string> dirs;
  for (const auto& n : member_names) {
    size_t slash = n.find('/');
    if (slash == std::string::npos) continue;
    std::string_view top(n.data(), slash);
    if (top.size() > kSuffix.size() && top.substr(top.size() - kSuffix.size()) == kSuffix)
      dirs.insert(std::string(top));
  }
  const std::string w(wheel);
  if (dirs.empty()) return Error(w + ": no top-level *.dist-info directory");
  if (dirs.size() > 1) {
    std::string list;
    for (const auto& d : dirs) list += (list.empty() ? "" : ", ") + printable(d);
    return Error(w + ": " + std::to_string(dirs.size()) + " .dist-info directories: " + list);
  }
  DistInfoLocation loc;
  loc.dir = *dirs.begin();
  std::string_view stem(loc.dir.data(), loc.dir.size() - kSuffix.size());
  size_t dash = stem.find('-');
  loc.name = std::string(stem.substr(0, dash));
  loc.version = dash == std::string_view::npos ? std::string() : std::string(stem.substr(dash + 1));
  if (filename) {
    loc.name_matches = normalize_name(loc.name) == normalize_name(filename->distribution);
    auto a = Version::parse(loc.version);
    auto b = Version::parse(filename->version);
    loc.version_matches = (a && b) ? (*a == *b && a->to_string() == b->to_string())
                                   : loc.version == filename->version;
  }
  return loc;
}

}  // namespace cuwheel
