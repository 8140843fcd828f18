// Building check models: every input read once. See include/cuwheel/check/check.h.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <optional>
#include <set>

#include "cuwheel/object/archive.h"
#include "cuwheel/object/identify.h"
#include "cuwheel/model/model.h"
#include "cuwheel/base/fileio.h"
#include "cuwheel/base/digest.h"
#include "cuwheel/model/inputs.h"
#include "cuwheel/wheel/pep508.h"

namespace fs = std::filesystem;

namespace cuwheel::model {

namespace {
// A member's first path component ("faiss" for "faiss/loader.py").
std::string top_folder(const std::string& member) { return member.substr(0, member.find('/')); }
}  // namespace

namespace {

bool is_elf(ByteView b) { return identify(b) == FileKind::elf; }
// The members check reads as libraries: ELF files (cubins among them),
// static archives, and raw fatbin files, which a package loads itself
// (cuModuleLoad / cuModuleLoadFatBinary on a file it ships): their device
// code is the package's, with no ELF facts (the loading rules see is_elf
// false and stay silent).
bool is_library_like(ByteView b) {
  FileKind k = identify(b);
  return k == FileKind::elf || k == FileKind::archive || k == FileKind::fatbin;
}

// Fills a LibraryModel from the bytes of one ELF file (or archive member).
void read_library(LibraryModel& lib, ByteView bytes, const std::function<void(ByteView)>& done,
                  DecodeBudget* budget) {
  ReadObjectOptions ro;
  ro.budget = budget;
  LibraryModel read = read_object(bytes, ro, done);
  read.member = std::move(lib.member);
  read.archive_member = std::move(lib.archive_member);
  read.owner = std::move(lib.owner);
  lib = std::move(read);
}

// A library that could not be read fully is an unreadable input, never a
// silent pass: its facts would be partial.
void note_library_error(CheckModel& m, const LibraryModel& lib) {
  if (lib.error.empty()) return;
  std::string where = m.path;
  if (!lib.member.empty()) where += ":" + printable(lib.member);
  if (!lib.archive_member.empty()) where += ":" + printable(lib.archive_member);
  m.read_errors.emplace_back(where, lib.error);
}

// `budget`: the decode budget of the input `bytes` belong to (a wheel's);
// null: the object's (an archive's members share the archive's).
void read_object_bytes(CheckModel& m, const std::string& member, const std::string& owner, ByteView bytes,
                       const std::function<void(ByteView)>& done, DecodeBudget* budget) {
  DecodeBudget own(bytes.size());
  if (!budget) budget = &own;
  if (identify(bytes) == FileKind::archive) {
    auto members = archive::read(bytes);
    if (!members) {
      m.read_errors.emplace_back(m.path + (member.empty() ? "" : ":" + member), members.error().message());
      return;
    }
    for (const auto& am : *members) {
      if (!is_elf(am.data)) {
        std::string where = m.path + (member.empty() ? "" : ":" + printable(member)) + ":" + printable(am.name);
        m.read_errors.emplace_back(where, "not an ELF object (archive member data at " + hex(am.data_offset) + ")");
        continue;
      }
      LibraryModel lib;
      lib.member = member;
      lib.archive_member = am.name;
      lib.owner = owner;
      read_library(lib, am.data, {}, budget);
      note_library_error(m, lib);
      m.libraries.push_back(std::move(lib));
    }
    return;
  }
  LibraryModel lib;
  lib.member = member;
  lib.owner = owner;
  read_library(lib, bytes, done, budget);
  note_library_error(m, lib);
  m.libraries.push_back(std::move(lib));
}

// The loads a distribution's Python files and package data name
// (python_loads, json_loads), member by member, for a wheel or an
// installed distribution alike.
class LoadsScan {
 public:
  explicit LoadsScan(CheckModel& m) : m_(m) {}
  void scan(const std::string& name, ByteView v) {
    if (name.ends_with(".py")) {
      for (auto& l : python_loads(name, v)) m_.python_loads.push_back(std::move(l));
      std::string_view src(reinterpret_cast<const char*>(v.data()), std::min<size_t>(v.size(), 4u << 20));
      if (src.find("CDLL(") != std::string_view::npos || src.find("LoadLibrary(") != std::string_view::npos)
        loader_tops_.insert(top_folder(name));
    }
    // Package data that a loader reads its list of libraries from
    // (faiss/_preload_library.json: "library": "libcudart.so.12", handed to
    // ctypes.CDLL; cupy/.data/_wheel.json): quoted sonames only.
    if (name.ends_with(".json") && v.size() <= (1u << 20) && name.find(".dist-info/") == std::string::npos)
      for (auto& l : json_loads(name, v)) json_pending_.push_back(std::move(l));
  }
  // A JSON list counts only beside Python code that loads libraries with
  // ctypes (faiss/loader.py: ctypes.CDLL(path)) in the same top-level
  // package: a list of sonames "not to bundle" loads nothing.
  void finish() {
    for (auto& l : json_pending_)
      if (loader_tops_.count(top_folder(l.member))) m_.python_loads.push_back(std::move(l));
    json_pending_.clear();
  }

 private:
  CheckModel& m_;
  std::vector<PythonLoad> json_pending_;
  std::set<std::string> loader_tops_;
};

// Reads the .dist-info files a wheel and an installed distribution both
// hold (PEP 427, PEP 376/PEP 627): METADATA, WHEEL, RECORD and
// entry_points.txt of m.dist_info, each through `read` (nullopt: not there,
// or not readable, which `read` reports itself). A wheel must have WHEEL
// and RECORD; an installed distribution's absent WHEEL or RECORD is no
// error here (RECORD decides elsewhere whether a folder is one).
void read_dist_info(CheckModel& m, bool wheel,
                    const std::function<std::optional<std::string>(const std::string&)>& read) {
  auto view = [](const std::string& t) { return ByteView(reinterpret_cast<const uint8_t*>(t.data()), t.size()); };
  const std::string& di = m.dist_info;
  WarningSink warnings;
  if (auto t = read("METADATA")) {
    auto md = CoreMetadata::parse(view(*t), di + "/METADATA", warnings);
    if (md) m.metadata = std::move(*md);
    else m.metadata_error = md.error().message();
  } else {
    m.metadata_error = di + "/METADATA is missing";
  }
  m.metadata_warnings = warnings.messages();
  WarningSink ww, rw, ew;
  if (auto t = read("WHEEL")) {
    auto wi = WheelInfo::parse(view(*t), di + "/WHEEL", ww);
    if (wi) m.wheel_info = std::move(*wi);
    else m.wheel_info_error = wi.error().message();
  } else if (wheel) {
    m.wheel_info_error = di + "/WHEEL is missing";
  }
  if (auto t = read("RECORD")) m.record = Record::parse(view(*t), di + "/RECORD", rw);
  else if (wheel) m.record_error = di + "/RECORD is missing";
  if (auto t = read("entry_points.txt")) m.entry_points = parse_entry_points(view(*t), di + "/entry_points.txt", ew);
}

// check's model of one wheel, built during the one walk of its members
// (walk_wheel, model/inputs.h): the central directory and .dist-info when
// the wheel opens, then per member what the rules need. A member is read
// whole when RECORD lists it with a hash record-mismatch compares
// (sha256, sha384, sha512) or when it names loads (Python sources, package
// JSON); otherwise only when its first bytes are an ELF file's or a static
// archive's. A member RECORD does not list is reported by name alone, and
// not read unless it may be an object (a thousand members that RECORD does
// not list are not each inflated).
class WheelModelVisitor : public InputVisitor {
 public:
  WheelModelVisitor(CheckModel& m, const BuildOptions& opts, const std::function<void(const std::string&)>& progress)
      : m_(m), opts_(opts), progress_(progress), loads_(m) {}

  void begin_wheel(const std::string& path, Wheel& w) override {
    m_.archive_size = w.archive_size();
    // One decode budget for every library of the wheel, tied to the
    // wheel's file size (object/devicecode.h).
    budget_.emplace(w.archive_size());
    std::vector<std::string> names;
    for (const auto& zm : w.members()) {
      names.push_back(zm.name);
      MemberModel mm;
      mm.name = zm.name;
      mm.compressed_size = zm.compressed_size;
      mm.size = zm.uncompressed_size;
      mm.crc32 = zm.crc32;
      mm.issues = zm.issues;
      m_.members.push_back(std::move(mm));
    }
    auto loc = locate_dist_info(names, m_.parsed_filename ? &*m_.parsed_filename : nullptr, path);
    if (!loc) {
      m_.metadata_error = loc.error().message();
      return;
    }
    m_.dist_info = loc->dir;
    read_dist_info(m_, /*wheel=*/true, [&](const std::string& name) -> std::optional<std::string> {
      const ZipMember* zm = w.find(m_.dist_info + "/" + name);
      if (!zm) return std::nullopt;
      auto b = w.read(*zm);
      if (!b) {
        m_.read_errors.emplace_back(path + ":" + zm->name, b.error().message());
        return std::nullopt;
      }
      ByteView v = b->view();
      return std::string(reinterpret_cast<const char*>(v.data()), v.size());
    });
  }

  bool skip_wheel_member(const std::string& path, const ZipMember& zm, size_t index) override {
    if (!opts_.known || !opts_.known->count(zm.name)) return false;
    known_.insert(index);
    return true;
  }

  InputVisitor::MemberRequest wheel_member(const std::string& path, const ZipMember& zm, size_t index) override {
    InputVisitor::MemberRequest req;
    if (opts_.hash_members && m_.record)
      if (const RecordEntry* re = m_.record->find(zm.name);
          re && (re->hash_algorithm == "sha256" || re->hash_algorithm == "sha384" || re->hash_algorithm == "sha512"))
        req.digest = re->hash_algorithm;
    // Python sources and package JSON are read for the loads they name.
    const bool loads_text = (opts_.hash_members || opts_.scan_python_loads) && !opts_.python_loads && (zm.name.ends_with(".py") ||
                                                   (zm.name.ends_with(".json") && zm.uncompressed_size <= (1u << 20)));
    req.whole = !req.digest.empty() || loads_text;
    return req;
  }

  void wheel_member_begin(const std::string& path, const ZipMember& zm, size_t index) override {
    current_ = index;
    if (known_.count(index)) {
      // Facts the caller already has (BuildOptions::known), taken in
      // member order.
      auto it = opts_.known->find(zm.name);
      MemberModel& mm = m_.members[index];
      mm.read_ok = true;
      mm.digest = it->second.digest;
      if (it->second.library) {
        it->second.library->member = zm.name;
        m_.libraries.push_back(std::move(*it->second.library));
        it->second.library.reset();
      }
      return;
    }
    if (progress_) progress_(path + ":" + zm.name);
  }

  void object(const ObjectRef& o) override {
    if (!is_library_like(o.bytes)) return;
    m_.members[current_].read_ok = true;
    read_object_bytes(m_, o.member, "", o.bytes, [&o](ByteView part) { o.release(part); }, &*budget_);
  }

  void wheel_member_read(const ObjectRef& ref, const ZipMember& zm, size_t index, const Blob& blob,
                         const std::string& digest) override {
    MemberModel& mm = m_.members[index];
    mm.read_ok = true;
    if (!opts_.python_loads) loads_.scan(zm.name, ref.bytes);
    if (!digest.empty()) mm.digest = digest;
  }

  void wheel_member_error(const std::string& where, const ZipMember& zm, size_t index, const Error& err) override {
    MemberModel& mm = m_.members[index];
    mm.read_error = err.message();
    m_.read_errors.emplace_back(where, mm.read_error);
  }

  void error(const std::string& where, const Error& err) override { m_.read_errors.emplace_back(where, err.message()); }

  void finish() {
    if (opts_.python_loads) m_.python_loads = *opts_.python_loads;
    else loads_.finish();
  }

 private:
  CheckModel& m_;
  const BuildOptions& opts_;
  const std::function<void(const std::string&)>& progress_;
  LoadsScan loads_;
  std::optional<DecodeBudget> budget_;
  std::set<size_t> known_;  ///< members whose facts opts_.known gives (not read)
  size_t current_ = 0;  ///< the member being walked: the last one wheel_member_begin() was told of
};

Expected<CheckModel> build_wheel_model(const std::string& path, const BuildOptions& opts,
                                       const std::function<void(const std::string&)>& progress) {
  CheckModel m;
  m.path = path;
  m.kind = CheckModel::Kind::wheel;
  m.filename = fs::path(path).filename().string();
  auto fn = WheelFilename::parse(m.filename);
  if (fn) m.parsed_filename = *fn;
  else m.filename_error = fn.error().message();
  WheelModelVisitor v(m, opts, progress);
  WalkOptions wo;
  wo.expand_archives = false;  // read_object_bytes reads an archive's members itself
  if (Status s = walk_wheel(path, wo, v); !s) return s.error();
  v.finish();
  return m;
}

}  // namespace

namespace {

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }


// The string literal starting at `p` (after spaces), or "".
std::string literal_at(std::string_view s, size_t p) {
  while (p < s.size() && (s[p] == ' ' || s[p] == '\t')) ++p;
  if (p >= s.size() || (s[p] != '"' && s[p] != '\'')) return "";
  const char q = s[p];
  size_t e = s.find(q, p + 1);
  if (e == std::string_view::npos || e - p > 256) return "";
  return std::string(s.substr(p + 1, e - p - 1));
}

bool soname_like(std::string_view t) {
  if (t.size() < 6 || t.size() > 128 || t.substr(0, 3) != "lib") return false;
  size_t so = t.find(".so");
  if (so == std::string_view::npos || so < 4) return false;
  for (size_t i = 3; i < so; ++i)
    if (!ident_char(t[i]) && t[i] != '-' && t[i] != '+') return false;
  for (size_t i = so + 3; i < t.size(); ++i)
    if (!std::isdigit(static_cast<unsigned char>(t[i])) && t[i] != '.') return false;
  return true;
}

}  // namespace

namespace {

// Every library file name (or printf pattern of one) held as a whole
// NUL-terminated string in the same sections: [A-Za-z0-9_+.%-]+ ".so",
// then digits, dots or printf conversions.
std::vector<std::string> library_strings_of(const elf::File& f) {
  std::set<std::string> out;
  const ByteView d = f.data();
  auto name_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '+' || c == '.' || c == '%';
  };
  for (const auto& sec : f.sections()) {
    if (sec.type != elf::SHT_PROGBITS || !(sec.flags & 0x2 /*SHF_ALLOC*/) || (sec.flags & 0x4 /*SHF_EXECINSTR*/))
      continue;
    if (sec.name != ".rodata" && sec.name.rfind(".rodata.", 0) != 0 && sec.name != ".lrodata") continue;
    if (!in_bounds(d.size(), sec.offset, sec.size)) continue;
    std::string_view s(reinterpret_cast<const char*>(d.data()) + sec.offset, sec.size);
    for (size_t p = s.find(".so"); p != std::string_view::npos && out.size() < 256; p = s.find(".so", p + 3)) {
      size_t b = p;
      while (b > 0 && p - b < 96 && name_char(s[b - 1])) --b;
      if (p == b || p - b >= 96 || (b > 0 && s[b - 1] != '\0')) continue;
      size_t e = p + 3;
      while (e < s.size() && e - p < 32 &&
             (std::isdigit(static_cast<unsigned char>(s[e])) || s[e] == '.' || s[e] == '%' || s[e] == 'd' || s[e] == 'u'))
        ++e;
      if (e >= s.size() || s[e] != '\0') continue;
      out.insert(std::string(s.substr(b, e - b)));
    }
  }
  return {out.begin(), out.end()};
}

}  // namespace

bool PythonLoad::loads(const std::string& soname) const {
  switch (kind) {
    // A file name "libcutensor.so.2.4.1" carries the soname libcutensor.so.2.
    case Kind::soname: return soname == name || name.rfind(soname + ".", 0) == 0;
    case Kind::pathfinder: return soname.rfind("lib" + name + ".so", 0) == 0;
    case Kind::nvidia_module: {
      std::string stem = name.rfind("lib", 0) == 0 ? name : "lib" + name;
      return soname.rfind(stem + ".so", 0) == 0;
    }
    case Kind::file_pattern: return false;  // names files to open by path, not a soname in the process
    case Kind::soname_glob: return soname.rfind(name.substr(0, name.find(".so.*") + 4), 0) == 0;
  }
  return false;
}

std::string PythonLoad::describe() const {
  switch (kind) {
    case Kind::pathfinder:
      return indirect ? member + ": load_nvidia_dynamic_lib(...), \"" + name + "\" among the names it is given"
                      : member + ": load_nvidia_dynamic_lib(\"" + name + "\")";
    case Kind::nvidia_module: return member + ": nvidia." + name;
    case Kind::file_pattern: return member + ": f\"" + name.substr(0, name.size() - 1) + "{...}\"";
    case Kind::soname_glob: return member + ": \"" + name + "\"";
    case Kind::soname: return member + ": \"" + name + "\"";
  }
  return member;
}

std::vector<PythonLoad> python_loads(std::string_view member, ByteView source) {
  std::vector<PythonLoad> out;
  const size_t n = std::min<size_t>(source.size(), 4u << 20);
  if (n == 0) return out;
  std::string_view s(reinterpret_cast<const char*>(source.data()), n);
  // At most 4,096 loads per file, each kept once (a set, not a scan: a
  // file of 250,000 distinct sonames stays linear).
  std::set<std::pair<int, std::string>> kept;
  auto add = [&](PythonLoad::Kind k, std::string name) {
    if (out.size() >= 4096 || !kept.emplace(static_cast<int>(k), name).second) return;
    out.push_back(PythonLoad{std::string(member), k, std::move(name)});
  };
  // The start of the line holding `p`, found moving forward only (every
  // caller asks for increasing positions), so long lines cost one pass.
  size_t line_at = 0, line_start = 0, hash_at = std::string_view::npos;  // hash_at: first '#' of the line
  auto start_of_line = [&](size_t p) {
    if (p < line_at) {  // a new scan from the top
      line_at = 0;
      line_start = 0;
      hash_at = std::string_view::npos;
    }
    for (; line_at < p; ++line_at) {
      if (s[line_at] == '\n') {
        line_start = line_at + 1;
        hash_at = std::string_view::npos;
      } else if (s[line_at] == '#' && hash_at == std::string_view::npos) {
        hash_at = line_at;
      }
    }
    return line_start;
  };
  // A '#' earlier on the line: the text is a comment (or, rarely, inside a
  // string that holds '#'; then the load is missed, never invented).
  auto in_comment = [&](size_t p) {
    start_of_line(p);
    return hash_at != std::string_view::npos;
  };
  // A call with a name in a variable (cupy_backends/cuda/libs/__init__.py:
  // load_nvidia_dynamic_lib(pathfinder_name), the names in a tuple of the
  // same file): every literal of the file that names an NVIDIA library
  // (lib<name>.so is a CUDA library, cuda/libclass.h) is one it may load.
  bool indirect = false;
  for (size_t p = s.find("load_nvidia_dynamic_lib("); p != std::string_view::npos;
       p = s.find("load_nvidia_dynamic_lib(", p + 1)) {
    if (p >= 4 && s.compare(p - 4, 4, "def ") == 0) continue;  // its definition
    if (in_comment(p)) continue;
    std::string lit = literal_at(s, p + 24);
    bool ok = !lit.empty();
    for (char c : lit) ok = ok && ident_char(c);
    if (ok) add(PythonLoad::Kind::pathfinder, lit);
    size_t a = p + 24;
    while (a < s.size() && (s[a] == ' ' || s[a] == '\t')) ++a;
    if (a < s.size() && ident_char(s[a])) indirect = true;
  }
  if (indirect)
    for (size_t p = 0; p < s.size(); ++p) {
      if (s[p] != '"' && s[p] != '\'') continue;
      std::string lit = literal_at(s, p);
      if (lit.empty()) continue;
      p += lit.size() + 1;
      bool ok = lit.size() <= 32;
      for (char c : lit) ok = ok && ident_char(c);
      if (ok && classify_soname("lib" + lit + ".so").kind == LibraryKind::cuda_toolkit) {
        const size_t before = out.size();
        add(PythonLoad::Kind::pathfinder, lit);
        if (out.size() > before) out.back().indirect = true;
      }
    }
  for (size_t p = s.find("nvidia."); p != std::string_view::npos; p = s.find("nvidia.", p + 1)) {
    if (p > 0 && (ident_char(s[p - 1]) || s[p - 1] == '.')) continue;
    size_t e = p + 7;
    while (e < s.size() && ident_char(s[e])) ++e;
    // NVIDIA's package names are short (cublas, cuda_nvrtc, cu13): an
    // identifier of over 64 characters names no package and no library.
    if (e == p + 7 || e - p - 7 > 64) continue;
    // `import nvidia.X` / `from nvidia.X` / `nvidia.X.load_library()`
    const size_t ls = start_of_line(p);
    std::string_view line = s.substr(ls, p - ls);
    if (line.size() > 64) line = line.substr(line.size() - 64);  // only "   import " matters
    size_t f = line.find_first_not_of(" \t");
    line = f == std::string_view::npos ? std::string_view() : line.substr(f);
    const bool imported = line == "import " || line == "from ";
    const bool calls = s.compare(e, 14, ".load_library(") == 0;
    if (imported || calls) add(PythonLoad::Kind::nvidia_module, std::string(s.substr(p + 7, e - p - 7)));
  }
  for (size_t p = 0; p < s.size(); ++p) {
    if (s[p] != '"' && s[p] != '\'') continue;
    std::string lit = literal_at(s, p);
    if (in_comment(p)) {  // a quoted name in a comment loads nothing
      if (!lit.empty()) p += lit.size() + 1;
      continue;
    }
    if (soname_like(lit)) add(PythonLoad::Kind::soname, lit);
    // "libcusolver.so.*[0-9]": torch/__init__.py preloads each NVIDIA
    // library by a glob of its file names.
    if (size_t g = lit.find(".so.*"); g != std::string::npos && g >= 4 && lit.rfind("lib", 0) == 0 &&
                                        soname_like(lit.substr(0, g + 3)))
      add(PythonLoad::Kind::soname_glob, lit);
    // f"libbitsandbytes_{prefix}{version}{SUFFIX}": the literal part
    // before the first replacement field names a family of library files.
    if (p > 0 && s[p - 1] == 'f' && (p < 2 || !ident_char(s[p - 2])) && lit.rfind("lib", 0) == 0) {
      size_t brace = lit.find('{');
      bool ok = brace != std::string::npos && brace >= 6;
      for (size_t i = 0; ok && i < brace; ++i) ok = ident_char(lit[i]) || lit[i] == '-' || lit[i] == '.';
      if (ok) add(PythonLoad::Kind::file_pattern, lit.substr(0, brace) + "*");
    }
    if (!lit.empty()) p += lit.size() + 1;
  }
  return out;
}

std::vector<PythonLoad> json_loads(std::string_view member, ByteView source) {
  std::vector<PythonLoad> out;
  std::string_view s(reinterpret_cast<const char*>(source.data()), std::min<size_t>(source.size(), 1u << 20));
  for (size_t p = 0; p < s.size() && out.size() < 256; ++p) {
    if (s[p] != '"') continue;
    std::string lit = literal_at(s, p);
    if (lit.empty()) continue;
    p += lit.size() + 1;
    if (!soname_like(lit)) continue;
    bool dup = false;
    for (const auto& l : out) dup = dup || l.name == lit;
    if (!dup) out.push_back(PythonLoad{std::string(member), PythonLoad::Kind::soname, lit});
  }
  return out;
}

LibraryModel read_object(ByteView bytes, const ReadObjectOptions& opts, const std::function<void(ByteView)>& done) {
  LibraryModel lib;
  lib.size = bytes.size();
  lib.is_elf = is_elf(bytes);
  WarningSink w;
  std::optional<elf::File> file;
  auto finish = [&] {
    lib.warnings = w.messages();
    return std::move(lib);
  };
  if (lib.is_elf) {
    // A file cut before the end of its section or program header table is
    // unreadable for every command, as for `list`: what the rest of the
    // reader would find without those tables is partial (the section-less
    // path misses containers in data sections and a cubin's 'a').
    if (auto t = elf::truncated_header_tables(bytes)) {
      lib.elf_error = lib.error = *t;
      return finish();
    }
    auto f = elf::File::parse(bytes, &w);
    if (!f) {
      lib.elf_error = lib.error = f.error().message();
      lib.is_elf = false;
      return finish();
    }
    file = std::move(*f);
    lib.load = read_load_facts(*file, &w, done);
    if (file->machine() != elf::EM_CUDA) {
      lib.library_strings = library_strings_of(*file);
      // The CUDA sonames among them: what the library may dlopen by name.
      for (const auto& n : lib.library_strings)
        if (lib.dlopen_names.size() < 64 && n.rfind("lib", 0) == 0 && n.find('%') == std::string::npos &&
            classify_soname(n).kind == LibraryKind::cuda_toolkit)
          lib.dlopen_names.push_back(n);
    }
    for (const auto& vn : lib.load.version_needs) lib.version_need_files.push_back(vn.file);
    auto syms = file->dynamic_symbols(&w);
    if (syms) {
      lib.cuda_symbol_needs = cuda_symbol_needs(*syms);
      if (opts.exports)
        for (const auto& s : *syms) {
          // Exported: defined, global or weak, default/protected visibility.
          if (!s.defined() || s.name.empty()) continue;
          // A version definition (GNU ld gives each node of a version
          // script an SHN_ABS symbol of its name, value and size 0) names
          // a version, not code or data.
          if (s.shndx == 0xfff1 /*SHN_ABS*/ && s.size == 0 && s.value == 0) continue;
          if (s.bind != 1 /*GLOBAL*/ && s.bind != 2 /*WEAK*/) continue;
          if ((s.other & 0x3) == 1 || (s.other & 0x3) == 2) continue;  // internal / hidden
          if (s.type != 1 /*OBJECT*/ && s.type != 2 /*FUNC*/ && s.type != 10 /*IFUNC*/ && s.type != 6 /*TLS*/) continue;
          lib.exports.push_back(s.name);
          lib.export_weak.push_back(s.bind == 2);
        }
    } else {
      w.warn("dynamic symbols: " + syms.error().message());
    }
    if (done) done(bytes);
  }
  // Every payload is decoded (Depth::verify or full): a compressed cubin or PTX that
  // does not decode is device code the rules cannot vouch for, so the
  // library is unreadable (exit 2), never a pass on the entry headers alone.
  // Without names wanted, PTX entry names are not listed (Depth::verify):
  // the payloads are still decoded in full.
  const Depth depth = opts.keep_names ? Depth::full : Depth::verify;
  auto dc = file ? read_device_code(*file, depth, &w, done, opts.budget)
                 : read_device_code(bytes, depth, &w, done, opts.budget);
  if (dc) {
    lib.device_read = true;
    lib.summary = summarize(*dc);
    lib.device = std::move(*dc);
    for (auto& e : lib.device.entries) {
      if (!e.payload_error.empty()) {
        if (lib.error.empty()) lib.error = e.payload_error;
        if (std::find(lib.payload_errors.begin(), lib.payload_errors.end(), e.payload_error) ==
            lib.payload_errors.end())
          lib.payload_errors.push_back(e.payload_error);
      }
      if (opts.keep_names) continue;
      // The rules read architectures and PTX ISA versions, not kernel or
      // entry names: let those go, so a large wheel's models stay small.
      if (e.cubin) {
        std::vector<std::string>().swap(e.cubin->kernels);
        std::vector<uint64_t>().swap(e.cubin->kernel_hashes);
      }
      if (e.ptx) {
        std::vector<std::string>().swap(e.ptx->entries);
        std::vector<std::string>().swap(e.ptx->targets);
      }
    }
    if (lib.device.stopped && lib.error.empty()) lib.error = lib.device.stopped->message();
  } else {
    lib.device_error = dc.error().message();
    if (lib.error.empty()) lib.error = lib.device_error;
    w.warn("device code: " + lib.device_error);
  }
  return finish();
}

std::vector<std::string> LibraryModel::read_warnings() const {
  std::set<std::string> errors(payload_errors.begin(), payload_errors.end());
  for (const std::string* e : {&error, &elf_error, &device_error})
    if (!e->empty()) errors.insert(*e);
  if (!device_error.empty()) errors.insert("device code: " + device_error);
  if (device.stopped) errors.insert(device.stopped->message());
  std::vector<std::string> out;
  for (const auto& w : warnings)
    if (!errors.count(w)) out.push_back(w);
  return out;
}

namespace {

// An installed environment (a folder with `*.dist-info/RECORD` directly
// inside, such as site-packages): one model per distribution, checked as its
// wheel would be, with the files its RECORD lists as members (paths
// relative to the folder, as in the wheel) and the libraries among them.
// The other distributions of the folder, checked in the same run, are what
// it finds installed beside it (model/providers.h). Libraries no RECORD
// lists stay in one model of the folder, as before. RECORD's digests are
// not verified: an installed file may be legitimately rewritten (pip
// compiles .pyc files, entry-point scripts are generated).
std::vector<CheckModel> split_installed(CheckModel folder, const std::string& path) {
  std::vector<std::string> dist_infos;
  std::error_code ec;
  for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    std::error_code dec;
    if (name.ends_with(".dist-info") && it->is_directory(dec) && fs::is_regular_file(it->path() / "RECORD", dec))
      dist_infos.push_back(name);
  }
  std::vector<CheckModel> out;
  if (dist_infos.empty()) {
    out.push_back(std::move(folder));
    return out;
  }
  std::sort(dist_infos.begin(), dist_infos.end());
  std::map<std::string, size_t> owner_of;  // member -> index into out
  std::map<std::string, std::string> seen;  // distribution name (normalized) -> its first dist-info
  for (const auto& di : dist_infos) {
    CheckModel m;
    m.path = path;
    m.kind = CheckModel::Kind::installed;
    m.dist_info = di;
    const std::string base = path + "/" + di + "/";
    // A dist-info file that is there but cannot be read (not a regular
    // file, over the bound) makes the distribution unreadable; one that is
    // not there is missing, as in a wheel.
    auto text = [&](const std::string& name, size_t max = size_t{16} << 20,
                    bool report = true) -> std::optional<std::string> {
      std::error_code xec;
      if (!fs::exists(fs::symlink_status(base + name, xec))) return std::nullopt;
      auto t = read_whole_file(base + name, max);
      if (!t) {
        if (report) m.read_errors.emplace_back(path + ":" + printable(di + "/" + name), t.error().message());
        return std::nullopt;
      }
      return *t;
    };
    // (A RECORD that does not read is reported once, by the folder's walk: record_owners.)
    read_dist_info(m, /*wheel=*/false, [&](const std::string& name) {
      return name == "RECORD" ? text(name, kMaxRecordBytes, false) : text(name);
    });
    // Two versions of one distribution in one folder (a copy left behind):
    // the loader sees one set of files; say so rather than split them.
    if (m.metadata && !m.metadata->name.empty()) {
      auto [it, fresh] = seen.emplace(normalize_name(m.metadata->name), di);
      if (!fresh)
        m.read_errors.emplace_back(path + ":" + printable(di),
                                   "a second installed copy of " + printable(m.metadata->name) + " beside " +
                                       printable(it->second) + ": the folder is not one environment pip would make");
    }
    LoadsScan loads(m);
    if (m.record)
      for (const auto& e : m.record->entries) {
        if (e.path.empty() || e.path[0] == '/') continue;
        const std::string rel = fs::path(e.path).lexically_normal().generic_string();
        if (rel.empty() || rel.starts_with("..")) continue;  // scripts and data installed outside the folder
        std::error_code sec;
        const fs::path file = fs::path(path) / rel;
        const auto lst = fs::symlink_status(file, sec);
        if (!fs::exists(lst)) continue;  // listed, since removed (a .pyc)
        if (fs::is_directory(lst)) continue;
        MemberModel mm;
        mm.name = rel;
        if (!fs::is_regular_file(lst)) {
          // pip installs regular files; a link, a FIFO or a device here is
          // not read (a link to /dev/zero would never end) and is named.
          mm.read_error = "not a regular file (" +
                          std::string(fs::is_symlink(lst) ? "a symbolic link" : "a FIFO, socket or device") +
                          "); not read";
          m.read_errors.emplace_back(path + ":" + printable(rel), mm.read_error);
          owner_of.emplace(rel, out.size());
          m.members.push_back(std::move(mm));
          continue;
        }
        mm.size = fs::file_size(file, sec);
        mm.read_ok = true;
        if (rel.ends_with(".py") || (rel.ends_with(".json") && mm.size <= (1u << 20))) {
          // As in a wheel: python_loads reads the first 4 MiB of a module.
          auto b = Blob::map_file(file.string());
          if (!b) m.read_errors.emplace_back(path + ":" + printable(rel), b.error().message());
          else loads.scan(rel, b->view());
        }
        owner_of.emplace(rel, out.size());
        m.members.push_back(std::move(mm));
      }
    loads.finish();
    out.push_back(std::move(m));
  }
  CheckModel rest = std::move(folder);
  std::vector<LibraryModel> unowned;
  for (auto& lib : rest.libraries) {
    auto it = owner_of.find(lib.member);
    if (it == owner_of.end()) unowned.push_back(std::move(lib));
    else out[it->second].libraries.push_back(std::move(lib));
  }
  rest.libraries = std::move(unowned);
  std::vector<std::pair<std::string, std::string>> errors;
  for (auto& [where, msg] : rest.read_errors) {
    // "PATH:MEMBER[:ARCHIVE-MEMBER]"
    std::string member = where.size() > path.size() + 1 ? where.substr(path.size() + 1) : "";
    auto it = owner_of.find(member.substr(0, member.find(':')));
    if (it == owner_of.end()) errors.emplace_back(where, msg);
    else out[it->second].read_errors.emplace_back(where, msg);
  }
  rest.read_errors = std::move(errors);
  if (!rest.libraries.empty() || !rest.read_errors.empty()) out.push_back(std::move(rest));
  return out;
}

}  // namespace

Expected<std::vector<CheckModel>> build_models(const std::string& path, const BuildOptions& opts,
                                               const std::function<void(const std::string&)>& progress) {
  std::error_code ec;
  auto st = fs::status(path, ec);
  // The errno says why (ELOOP: "too many levels of symbolic links", EACCES,
  // ENOTDIR); only a path that is not there is "no such file or directory".
  if (ec && ec != std::errc::no_such_file_or_directory) {
    std::string why = ec.message();
    if (!why.empty()) why[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(why[0])));
    return Error(path + ": " + why);
  }
  if (ec || !fs::exists(st)) return Error(path + ": no such file or directory");
  std::vector<CheckModel> out;
  if (fs::is_directory(st)) {
    // A folder of wheels: one model per wheel. Otherwise an installed
    // environment: one model with every ELF file and its owner.
    // A *.whl that is not a regular file (a FIFO, a socket, a dangling
    // symlink; a folder named *.whl is no wheel) is an unreadable input with
    // the message it has when named directly ("not a regular file"), not
    // skipped: map_file() refuses it before opening, so a FIFO never blocks.
    std::vector<fs::path> wheels;
    for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
      std::error_code dec;
      if (it->path().extension() == ".whl" && !it->is_directory(dec)) wheels.push_back(it->path());
    }
    std::sort(wheels.begin(), wheels.end());
    if (!wheels.empty()) {
      for (const auto& wp : wheels) {
        std::error_code rec;
        if (!fs::is_regular_file(wp, rec)) {
          auto probe = Blob::map_file(wp.string());
          CheckModel bad;
          bad.path = wp.string();
          bad.unreadable = true;
          bad.read_errors.emplace_back(wp.string(), probe ? wp.string() + ": not a regular file" : probe.error().message());
          out.push_back(std::move(bad));
          continue;
        }
        auto m = build_wheel_model(wp.string(), opts, progress);
        if (!m) {
          CheckModel bad;
          bad.path = wp.string();
          bad.unreadable = true;
          bad.read_errors.emplace_back(wp.string(), m.error().message());
          out.push_back(std::move(bad));
          continue;
        }
        out.push_back(std::move(*m));
      }
      return out;
    }
    CheckModel m;
    m.path = path;
    m.kind = CheckModel::Kind::directory;
    struct V : InputVisitor {
      CheckModel& m;
      const std::function<void(const std::string&)>& progress;
      InputBudgets budgets;
      V(CheckModel& mm, const std::function<void(const std::string&)>& p) : m(mm), progress(p) {}
      void begin_input(const std::string& p, InputKind k) override { budgets.begin_input(p, k); }
      void begin_archive(const ObjectRef& a) override { budgets.begin_archive(a); }
      void object(const ObjectRef& o) override {
        if (progress) progress(o.display());
        if (!is_elf(o.bytes)) return;
        LibraryModel lib;
        lib.member = o.member;
        lib.archive_member = o.archive_member;
        lib.owner = o.owner;
        read_library(lib, o.bytes, [&o](ByteView part) { o.release(part); }, budgets.for_object(o));
        note_library_error(m, lib);
        m.libraries.push_back(std::move(lib));
      }
      void error(const std::string& where, const Error& err) override { m.read_errors.emplace_back(where, err.message()); }
    } v(m, progress);
    Status s = walk_input(path, WalkOptions{}, v);
    if (!s) return s.error();
    // A check with nothing to inspect never passes silently.
    if (m.libraries.empty() && m.read_errors.empty()) return Error(path + ": no wheels or ELF files found in this directory");
    return split_installed(std::move(m), path);
  }
  // A single file: a wheel (zip) or a library.
  auto head = Blob::map_file(path);
  if (!head) return head.error();
  ByteView hv = head->view();
  const FileKind kind = identify(hv);
  if (kind == FileKind::zip) {
    auto m = build_wheel_model(path, opts, progress);
    if (!m) return m.error();
    out.push_back(std::move(*m));
    return out;
  }
  // A raw fatbin is a library-like input too: device code, no ELF facts
  // (the loading rules see is_elf false and stay silent).
  if (!is_object(kind) && kind != FileKind::archive)
    return Error(path + ": " + kNotAnInput);
  CheckModel m;
  m.path = path;
  m.kind = CheckModel::Kind::library;
  const Blob& blob = *head;
  read_object_bytes(
      m, "", "", hv,
      [&blob, hv](ByteView part) { blob.release(static_cast<uint64_t>(part.data() - hv.data()), part.size()); },
      nullptr);
  out.push_back(std::move(m));
  return out;
}

}  // namespace cuwheel::model
