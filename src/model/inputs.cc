// Input walking. See include/cuwheel/model/inputs.h.
#include "cuwheel/model/inputs.h"
#include "cuwheel/object/identify.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "cuwheel/object/archive.h"
#include "cuwheel/object/devicecode.h"
#include "cuwheel/wheel/wheel.h"

namespace fs = std::filesystem;

namespace cuwheel {

void InputBudgets::begin_input(const std::string& path, InputKind kind) {
  wheel_.reset();
  archive_.reset();
  if (kind != InputKind::wheel) return;
  std::error_code ec;
  uint64_t size = std::filesystem::file_size(path, ec);
  if (!ec) wheel_.emplace(size);
}

void InputBudgets::begin_archive(const ObjectRef& archive) {
  archive_.emplace(archive.bytes.size());
  archive_name_ = archive.member.empty() ? archive.input : archive.member;
}

DecodeBudget* InputBudgets::for_object(const ObjectRef& obj) {
  if (wheel_) return &*wheel_;
  if (archive_ && !obj.archive_member.empty() &&
      (obj.member.empty() ? obj.input : obj.member) == archive_name_)
    return &*archive_;
  return nullptr;
}

std::string ObjectRef::display() const {
  std::string s = input;
  if (!member.empty()) s += ":" + member;
  if (!archive_member.empty()) s += ":" + archive_member;
  return s;
}

void ObjectRef::release(ByteView part) const {
  if (!blob || part.empty()) return;
  ByteView all = blob->view();
  if (part.data() < all.data() || part.data() + part.size() > all.data() + all.size()) return;
  blob->release(static_cast<uint64_t>(part.data() - all.data()), part.size());
}

std::string ObjectRef::file_name() const {
  const std::string& inner = !archive_member.empty() ? archive_member : !member.empty() ? member : input;
  size_t slash = inner.find_last_of('/');
  return slash == std::string::npos ? inner : inner.substr(slash + 1);
}

bool skip_by_name(std::string_view name) {
  static const char* const kText[] = {".py", ".pyi", ".pyc", ".pyx", ".pxd", ".h", ".hpp", ".hh", ".cuh",
                                      ".cu", ".c", ".cc", ".cpp", ".txt", ".md", ".rst", ".json", ".toml",
                                      ".cfg", ".ini", ".yaml", ".yml", ".html", ".js", ".css", ".csv",
                                      ".typed", ".pth", ".cmake", ".pc", ".inl", ".proto"};
  if (!name.empty() && name.back() == '/') return true;
  for (const char* ext : kText) {
    size_t n = std::strlen(ext);
    if (name.size() >= n && name.compare(name.size() - n, n, ext) == 0) return true;
  }
  // Core metadata files of a wheel.
  size_t slash = name.rfind('/');
  std::string_view dir = slash == std::string_view::npos ? std::string_view() : name.substr(0, slash);
  if (dir.size() > 10 && dir.compare(dir.size() - 10, 10, ".dist-info") == 0) return true;
  return false;
}

namespace {


// Reads the first n bytes of a file without mapping it.
Expected<std::vector<uint8_t>> read_head(const std::string& path, size_t n) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return Error(path + ": cannot open: " + std::strerror(errno));
  std::vector<uint8_t> buf(n);
  ssize_t got = pread(fd, buf.data(), n, 0);
  int e = errno;
  close(fd);
  if (got < 0) return Error(path + ": cannot read: " + std::strerror(e));
  buf.resize(static_cast<size_t>(got));
  return buf;
}

void visit_archive(ObjectRef base, ByteView bytes, InputVisitor& v) {
  auto members = archive::read(bytes);
  v.begin_archive(base);
  if (!members) {
    v.error(base.display(), members.error());
    return;
  }
  for (const auto& m : *members) {
    ObjectRef o = base;
    o.archive_member = m.name;
    o.bytes = m.data;
    v.object(o);
  }
}

void visit_bytes(ObjectRef ref, ByteView bytes, InputVisitor& v, const WalkOptions& opts) {
  switch (identify(bytes)) {
    case FileKind::archive:
      if (opts.expand_archives) {
        visit_archive(ref, bytes, v);
        return;
      }
      [[fallthrough]];
    default:
      ref.bytes = bytes;
      v.object(ref);
  }
}

void walk_wheel(const std::string& path, const WalkOptions& opts, InputVisitor& v, const std::string& owner) {
  auto w = Wheel::open(path);
  if (!w) {
    v.error(path, w.error());
    return;
  }
  const uint64_t total = w->archive_size();
  uint64_t done = 0;
  for (const auto& m : w->members()) {
    done += m.compressed_size;
    v.progress(path, std::min(done, total), total);
    if (m.is_dir || skip_by_name(m.name)) continue;
    const std::string where = path + ":" + printable(m.name);
    auto head = w->peek(m, kIdentifyBytes);
    if (!head) {
      v.error(where, head.error());
      continue;
    }
    FileKind s = identify(*head);
    if (s != FileKind::elf && s != FileKind::fatbin && s != FileKind::archive) continue;
    auto blob = w->read(m);
    if (!blob) {
      v.error(where, blob.error());
      continue;
    }
    ObjectRef ref;
    ref.input = path;
    ref.input_kind = InputKind::wheel;
    ref.member = m.name;
    ref.owner = owner;
    ref.blob = &*blob;
    visit_bytes(ref, blob->view(), v, opts);
  }
}

void walk_file(const std::string& path, InputKind kind, const std::string& member, const std::string& owner,
               const WalkOptions& opts, InputVisitor& v, const std::string& input) {
  auto b = Blob::map_file(path);
  if (!b) {
    v.error(member.empty() ? path : input + ":" + member, b.error());
    return;
  }
  ObjectRef ref;
  ref.input = input;
  ref.input_kind = kind;
  ref.member = member;
  ref.owner = owner;
  ref.blob = &*b;
  visit_bytes(ref, b->view(), v, opts);
}

}  // namespace

std::map<std::string, std::string> record_owners(const std::string& dir) {
  std::map<std::string, std::string> owners;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path p = it->path();
    const std::string name = p.filename().string();
    if (name.size() <= 10 || name.compare(name.size() - 10, 10, ".dist-info") != 0) continue;
    std::string dist = name.substr(0, name.size() - 10);
    size_t dash = dist.find('-');
    if (dash != std::string::npos) dist.resize(dash);
    std::ifstream rec(p / "RECORD");
    std::string line;
    while (std::getline(rec, line)) {
      // First CSV field; RECORD quotes fields that contain commas.
      std::string path;
      if (!line.empty() && line[0] == '"') {
        size_t i = 1;
        for (; i < line.size(); ++i) {
          if (line[i] == '"') {
            if (i + 1 < line.size() && line[i + 1] == '"') { path.push_back('"'); ++i; }
            else break;
          } else path.push_back(line[i]);
        }
      } else {
        path = line.substr(0, line.find(','));
      }
      if (path.empty()) continue;
      owners[fs::path(path).lexically_normal().generic_string()] = dist;
    }
  }
  return owners;
}

Status walk_input(const std::string& path, const WalkOptions& opts, InputVisitor& v) {
  std::error_code ec;
  fs::file_status st = fs::status(path, ec);
  // The errno says why (ELOOP: "too many levels of symbolic links", EACCES,
  // ENOTDIR); only a path that is not there is "no such file or directory".
  if (ec && ec != std::errc::no_such_file_or_directory) {
    std::string why = ec.message();
    if (!why.empty()) why[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(why[0])));
    return Error(path + ": " + why);
  }
  if (ec || !fs::exists(st)) return Error(path + ": no such file or directory");
  if (fs::is_directory(st)) {
    v.begin_input(path, InputKind::directory);
    auto owners = record_owners(path);
    std::vector<fs::path> files;
    // Walk folder by folder, so that a folder that cannot be read is
    // reported (and the rest still walked) rather than silently skipped.
    std::vector<fs::path> pending{fs::path(path)};
    while (!pending.empty()) {
      fs::path dir = std::move(pending.back());
      pending.pop_back();
      std::error_code dec;
      fs::directory_iterator it(dir, dec), end;
      if (dec) {
        v.error(dir.string(), Error(dir.string() + ": cannot read the directory: " + dec.message()));
        continue;
      }
      for (; it != end; it.increment(dec)) {
        std::error_code sec;
        if (it->is_symlink(sec)) continue;  // links would visit the same library twice
        if (it->is_directory(sec)) pending.push_back(it->path());
        else if (it->is_regular_file(sec)) files.push_back(it->path());
      }
      if (dec) v.error(dir.string(), Error(dir.string() + ": cannot read the directory: " + dec.message()));
    }
    std::sort(files.begin(), files.end());
    uint64_t n = 0;
    for (const auto& f : files) {
      v.progress(path, ++n, files.size());
      std::string rel = f.lexically_relative(path).generic_string();
      if (skip_by_name(rel)) continue;
      if (opts.max_file_size && fs::file_size(f, ec) > opts.max_file_size) continue;
      auto head = read_head(f.string(), kIdentifyBytes);
      if (!head) {
        v.error(path + ":" + rel, head.error());
        continue;
      }
      FileKind s = identify(*head);
      auto owner = owners.find(rel);
      std::string who = owner == owners.end() ? "" : owner->second;
      if (s == FileKind::zip && f.extension() == ".whl") {
        walk_wheel(f.string(), opts, v, who);
      } else if (s == FileKind::elf || s == FileKind::fatbin || s == FileKind::archive) {
        walk_file(f.string(), InputKind::directory, rel, who, opts, v, path);
      }
    }
    v.end_input(path);
    return Ok{};
  }
  // Anything but a regular file (a FIFO, a device) is refused before it is
  // opened: opening a FIFO would block forever.
  if (!fs::is_regular_file(st)) return Error(path + ": not a regular file or directory");
  auto head = read_head(path, kIdentifyBytes);
  if (!head) return head.error();
  FileKind s = identify(*head);
  if (s == FileKind::zip) {
    v.begin_input(path, InputKind::wheel);
    walk_wheel(path, opts, v, "");
  } else if (s == FileKind::archive) {
    v.begin_input(path, InputKind::archive);
    walk_file(path, InputKind::archive, "", "", opts, v, path);
  } else {
    v.begin_input(path, InputKind::file);
    walk_file(path, InputKind::file, "", "", opts, v, path);
  }
  v.end_input(path);
  return Ok{};
}

}  // namespace cuwheel
