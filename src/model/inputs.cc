// Input walking. See include/cuwheel/model/inputs.h.
#include "cuwheel/model/inputs.h"
#include "cuwheel/object/identify.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "cuwheel/base/digest.h"
#include "cuwheel/base/fileio.h"
#include "cuwheel/object/archive.h"
#include "cuwheel/object/devicecode.h"
#include "cuwheel/wheel/metadata.h"
#include "cuwheel/wheel/wheel.h"

namespace fs = std::filesystem;

namespace cuwheel {

void InputBudgets::begin_input(const std::string& path, InputKind kind) {
  wheel_.reset();
  archive_.reset();
  folder_.reset();
  if (kind == InputKind::directory) {
    folder_.emplace(0);  // grows with each file: one floor for the whole folder
    return;
  }
  if (kind != InputKind::wheel) return;
  std::error_code ec;
  uint64_t size = std::filesystem::file_size(path, ec);
  if (!ec) wheel_.emplace(size);
}

void InputBudgets::begin_archive(const ObjectRef& archive) {
  archive_counted_ = false;
  archive_.emplace(archive.bytes.size());
  archive_name_ = archive.member.empty() ? archive.input : archive.member;
}

DecodeBudget* InputBudgets::for_object(const ObjectRef& obj) {
  if (wheel_) return &*wheel_;
  if (folder_) {
    // Each file of the folder adds what its own size allows, once (the
    // members of an archive come with the archive's bytes).
    const std::string file = obj.member.empty() ? obj.input : obj.member;
    if (file != folder_file_) {
      folder_file_ = file;
      folder_->add_stored(obj.archive_member.empty() ? obj.bytes.size() : 0);
    }
    if (!obj.archive_member.empty() && archive_ && file == archive_name_ && !archive_counted_) {
      folder_->add_stored(archive_->stored_size());
      archive_counted_ = true;
    }
    return &*folder_;
  }
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

std::map<std::string, std::string> record_owners(const std::string& dir,
                                                 std::vector<std::pair<std::string, std::string>>* errors) {
  std::map<std::string, std::string> owners;
  std::error_code ec;
  std::vector<fs::path> dist_infos;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    std::error_code dec;
    if (name.size() > 10 && name.ends_with(".dist-info") && it->is_directory(dec)) dist_infos.push_back(it->path());
  }
  std::sort(dist_infos.begin(), dist_infos.end());
  for (const auto& p : dist_infos) {
    const std::string name = p.filename().string();
    std::string dist = name.substr(0, name.size() - 10);
    size_t dash = dist.find('-');
    if (dash != std::string::npos) dist.resize(dash);
    const fs::path record = p / "RECORD";
    std::error_code sec;
    if (!fs::exists(fs::symlink_status(record, sec))) continue;  // no RECORD: owns nothing
    // Bounded and regular files only: a FIFO would block, /dev/zero never end.
    auto text = read_whole_file(record.string(), kMaxRecordBytes);
    if (!text) {
      if (errors) errors->emplace_back(record.string(), text.error().message());
      continue;
    }
    WarningSink w;
    Record r = Record::parse(ByteView(reinterpret_cast<const uint8_t*>(text->data()), text->size()),
                             name + "/RECORD", w);
    for (const auto& e : r.entries)
      if (!e.path.empty()) owners.emplace(fs::path(e.path).lexically_normal().generic_string(), dist);
  }
  return owners;
}

namespace {

// One member as the reading thread hands it to the walking thread.
struct ReadMember {
  size_t index = 0;
  std::optional<Error> error;  ///< the member could not be peeked at or read
  std::optional<Blob> blob;    ///< read: the whole member (none: not an object we want)
  std::string digest;          ///< RECORD form, when asked for and read
};

// What the first pass decided for one member.
struct MemberPlan {
  enum class How : uint8_t { skip, peek, read } how = How::skip;
  bool whole = false;         ///< wheel_member() asked for the bytes
  bool maybe_object = false;  ///< the name may be an object's (skip_by_name)
  std::string digest;         ///< algorithm to hash with while reading
};

}  // namespace

Status walk_wheel(const std::string& path, const WalkOptions& opts, InputVisitor& v, const std::string& owner) {
  auto w = Wheel::open(path);
  if (!w) return w.error();
  v.begin_wheel(path, *w);
  const uint64_t total = w->archive_size();
  const auto& members = w->members();
  auto wanted = [&](FileKind k) {
    return k == FileKind::elf || k == FileKind::archive || (k == FileKind::fatbin && opts.wheel_fatbins);
  };

  // First pass: what to read of each member, asked before anything is read.
  std::vector<MemberPlan> plan(members.size());
  for (size_t i = 0; i < members.size(); ++i) {
    const ZipMember& m = members[i];
    if (m.is_dir || v.skip_wheel_member(path, m, i)) continue;
    const InputVisitor::MemberRequest req = v.wheel_member(path, m, i);
    MemberPlan& p = plan[i];
    p.whole = req.whole;
    p.maybe_object = !skip_by_name(m.name);
    if (!p.whole && !p.maybe_object) continue;
    p.how = p.whole ? MemberPlan::How::read : MemberPlan::How::peek;
    if (p.whole) p.digest = req.digest;
  }

  // Second pass. Reading threads decompress (and hash) the members in
  // order, at most kAhead members ahead of the one whose objects are visited
  // here. Each member is admitted against the wheel's limits, and peeked at
  // when only an object is wanted, in member order under one lock, so what
  // a limit refuses does not depend on timing; the decoding of admitted
  // members then runs on the threads side by side (Wheel::read_admitted).
  std::vector<size_t> order;
  for (size_t i = 0; i < members.size(); ++i)
    if (plan[i].how != MemberPlan::How::skip) order.push_back(i);
  // How far ahead: at most kAhead members, and the members held in memory
  // (not spilled to a temporary file) ahead of the visitor's at most
  // kAheadBytes in all, so that reading ahead adds little to the peak; a
  // larger one is read only once the visitor waits for it.
  constexpr size_t kAhead = 2;
  constexpr uint64_t kAheadBytes = 4ull << 20;
  const uint64_t spill_above = w->limits().in_memory_threshold;
  auto heap_size = [&](size_t pos) {
    const uint64_t n = members[order[pos]].uncompressed_size;
    return n > spill_above ? 0 : n;
  };
  uint64_t held = 0;     // heap_size of the positions taken and not yet handed to the visitor
  bool waiting = false;  // the visitor waits for position `consumed`
  std::mutex mu;
  std::condition_variable room;   // readers wait for a position to take
  std::condition_variable ready;  // the visitor waits for its member
  std::vector<std::optional<ReadMember>> slots(order.size());
  size_t next_pos = 0;  // the next position of `order` a reader takes
  size_t consumed = 0;  // positions handed to the visitor so far
  bool stop = false;

  // Under `mu`: peeks and admits member i; false when there is nothing to
  // decode (not an object we want, or an error, in `r`).
  auto dispatch = [&](size_t i, ReadMember& r) -> bool {
    const ZipMember& m = members[i];
    const MemberPlan& p = plan[i];
    r.index = i;
    if (p.how == MemberPlan::How::peek) {
      auto head = w->peek(m, kIdentifyBytes);
      if (!head) {
        r.error = head.error();
        return false;
      }
      if (!wanted(identify(*head))) return false;
    }
    if (Status s = w->admit_read(m); !s) {
      r.error = s.error();
      return false;
    }
    return true;
  };
  auto decode = [&](size_t i, ReadMember& r) {
    const ZipMember& m = members[i];
    const MemberPlan& p = plan[i];
    std::optional<Digest> digest;
    if (!p.digest.empty())
      if (auto d = Digest::create(p.digest)) digest.emplace(std::move(*d));
    auto blob = w->read_admitted(m, digest ? &*digest : nullptr);
    if (!blob) {
      r.error = blob.error();
      return;
    }
    r.blob.emplace(std::move(*blob));
    if (digest) {
      const std::string raw = digest->finish();
      r.digest = p.digest + "=" + base64url_nopad(ByteView(reinterpret_cast<const uint8_t*>(raw.data()), raw.size()));
    }
  };
  auto reader = [&] {
    for (;;) {
      size_t pos;
      ReadMember r;
      bool to_decode = false;
      {
        std::unique_lock<std::mutex> lock(mu);
        room.wait(lock, [&] {
          return stop || next_pos >= order.size() || (waiting && next_pos == consumed) ||
                 (next_pos < consumed + 1 + kAhead && held + heap_size(next_pos) <= kAheadBytes);
        });
        if (stop || next_pos >= order.size()) return;
        pos = next_pos++;
        held += heap_size(pos);
        try {
          to_decode = dispatch(order[pos], r);
        } catch (const std::exception& e) {  // std::bad_alloc: the member, not the walk, fails
          r.error = Error(std::string("cannot read the member: ") + e.what());
        }
      }
      if (to_decode) {
        try {
          decode(order[pos], r);
        } catch (const std::exception& e) {
          r.blob.reset();
          r.error = Error(std::string("cannot read the member: ") + e.what());
        }
      }
      std::lock_guard<std::mutex> lock(mu);
      slots[pos].emplace(std::move(r));
      if (waiting && pos == consumed) ready.notify_one();
    }
  };
  std::vector<std::thread> readers;
  const size_t n_readers = order.empty() ? 0 : std::thread::hardware_concurrency() > 1 ? 2 : 1;
  for (size_t t = 0; t < n_readers; ++t) {
    try {
      readers.emplace_back(reader);
    } catch (...) {
      break;  // no more threads: the ones started do the work
    }
  }
  struct Join {
    std::mutex& mu;
    std::condition_variable& cv;
    bool& stop;
    std::vector<std::thread>& threads;
    ~Join() {
      {
        std::lock_guard<std::mutex> lock(mu);
        stop = true;
      }
      cv.notify_all();
      for (auto& t : threads) t.join();
    }
  } join{mu, room, stop, readers};
  auto take = [&](size_t pos) -> ReadMember {
    if (readers.empty()) {  // no thread could be started: read here
      ReadMember r;
      if (dispatch(order[pos], r)) decode(order[pos], r);
      return r;
    }
    std::unique_lock<std::mutex> lock(mu);
    if (!slots[pos]) {
      waiting = true;
      room.notify_all();  // a member larger than kAheadBytes may be read now
      ready.wait(lock, [&] { return slots[pos].has_value(); });
      waiting = false;
    }
    ReadMember r = std::move(*slots[pos]);
    slots[pos].reset();
    held -= heap_size(pos);
    consumed = pos + 1;
    room.notify_all();
    return r;
  };

  uint64_t done = 0;
  size_t pos = 0;  // into `order`
  for (size_t i = 0; i < members.size(); ++i) {
    const ZipMember& m = members[i];
    done += m.compressed_size;
    v.progress(path, std::min(done, total), total);
    if (m.is_dir) continue;
    v.wheel_member_begin(path, m, i);
    const MemberPlan& p = plan[i];
    if (p.how == MemberPlan::How::skip) continue;
    ReadMember r = take(pos++);
    const std::string where = path + ":" + printable(m.name);
    if (r.error) {
      v.wheel_member_error(where, m, i, *r.error);
      continue;
    }
    if (!r.blob) continue;
    const Blob& blob = *r.blob;
    ObjectRef ref;
    ref.input = path;
    ref.input_kind = InputKind::wheel;
    ref.member = m.name;
    ref.owner = owner;
    ref.blob = &blob;
    if (p.maybe_object && wanted(identify(blob.view()))) visit_bytes(ref, blob.view(), v, opts);
    if (p.whole) {
      ref.bytes = blob.view();
      v.wheel_member_read(ref, m, i, blob, r.digest);
    }
  }
  return Ok{};
}

namespace {

// A wheel inside a walk: one that cannot be opened is an error of the walk.
void walk_wheel_reporting(const std::string& path, const WalkOptions& opts, InputVisitor& v, const std::string& owner) {
  if (Status s = walk_wheel(path, opts, v, owner); !s) v.error(path, s.error());
}

}  // namespace

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
    std::vector<std::pair<std::string, std::string>> record_errors;
    auto owners = record_owners(path, &record_errors);
    for (const auto& [where, msg] : record_errors) v.error(where, Error(msg));
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
        const bool wheel_name = it->path().extension() == ".whl";
        if (it->is_symlink(sec)) {
          // Links would visit the same library twice; a *.whl link that leads
          // to no regular file (dangling, to a FIFO) is named, as check does.
          std::error_code tec;
          if (wheel_name && !fs::is_regular_file(it->path(), tec) && !fs::is_directory(it->path(), tec))
            v.error(it->path().string(), Error(it->path().string() + ": not a regular file"));
          continue;
        }
        if (it->is_directory(sec)) pending.push_back(it->path());
        else if (it->is_regular_file(sec)) files.push_back(it->path());
        else if (wheel_name)  // a FIFO, socket or device named *.whl: never opened (a FIFO would block)
          v.error(it->path().string(), Error(it->path().string() + ": not a regular file"));
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
        walk_wheel_reporting(f.string(), opts, v, who);
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
    walk_wheel_reporting(path, opts, v, "");
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
