// Wheel (zip) reading. The central directory is parsed here with the
// bounded reader. Deflate and stored members (what every wheel tool
// writes) are decoded by ISA-L's igzip straight from the archive bytes,
// with its CRC-32; libzip cross-checks the directory at open and decodes
// any other method. Section numbers refer to PKWARE's APPNOTE.TXT 6.3.x.
#include "cuwheel/wheel/wheel.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>
#include <zip.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>

#include "cuwheel/base/bytes.h"

namespace cuwheel {

namespace {

constexpr uint32_t kEocdSig = 0x06054b50;       // 4.3.16
constexpr uint32_t kZip64LocSig = 0x07064b50;   // 4.3.15
constexpr uint32_t kZip64EocdSig = 0x06064b50;  // 4.3.14
constexpr uint32_t kCentralSig = 0x02014b50;    // 4.3.12
constexpr uint32_t kLocalSig = 0x04034b50;      // 4.3.7
constexpr uint64_t kEocdSize = 22;
constexpr uint64_t kMaxComment = 0xffff;

// Random access to the archive bytes: pread on a file, or a memory view.
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  virtual uint64_t size() const = 0;
  // Reads exactly n bytes at offset into out; false when out of bounds or on
  // an I/O error.
  virtual bool read_at(uint64_t offset, uint64_t n, std::vector<uint8_t>& out) const = 0;
};

class FdSource : public ByteSource {
 public:
  FdSource(int fd, uint64_t size) : fd_(fd), size_(size) {}
  ~FdSource() override {
    if (fd_ >= 0) close(fd_);
  }
  uint64_t size() const override { return size_; }
  bool read_at(uint64_t offset, uint64_t n, std::vector<uint8_t>& out) const override {
    if (!in_bounds(size_, offset, n)) return false;
    out.resize(static_cast<size_t>(n));
    uint64_t done = 0;
    while (done < n) {
      ssize_t r = pread(fd_, out.data() + done, static_cast<size_t>(n - done),
                        static_cast<off_t>(offset + done));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) return false;
      done += static_cast<uint64_t>(r);
    }
    return true;
  }

 private:
  int fd_;
  uint64_t size_;
};

class MemSource : public ByteSource {
 public:
  explicit MemSource(ByteView v) : v_(v) {}
  uint64_t size() const override { return v_.size(); }
  bool read_at(uint64_t offset, uint64_t n, std::vector<uint8_t>& out) const override {
    auto s = slice(v_, offset, n);
    if (!s) return false;
    out.assign(s->begin(), s->end());
    return true;
  }

 private:
  ByteView v_;
};

struct ZipCloser {
  void operator()(zip_t* za) const {
    if (za) zip_discard(za);  // read-only: never write anything back
  }
};

std::string libzip_open_error(int code) {
  zip_error_t e;
  zip_error_init_with_code(&e, code);
  std::string msg = zip_error_strerror(&e);
  zip_error_fini(&e);
  return msg;
}

// Where the central directory is, per the (zip64) end records.
struct CentralDirInfo {
  uint64_t offset = 0, size = 0, entries = 0;
};

Expected<CentralDirInfo> find_central_directory(const ByteSource& src, const std::string& w) {
  uint64_t fsize = src.size();
  if (fsize < kEocdSize) return Error(w + ": not a zip archive: " + std::to_string(fsize) + " bytes is too short");
  uint64_t tail_len = std::min(fsize, kEocdSize + kMaxComment);
  uint64_t tail_start = fsize - tail_len;
  std::vector<uint8_t> tail;
  if (!src.read_at(tail_start, tail_len, tail)) return Error(w + ": cannot read the end of the archive");
  ByteView tv(tail);
  // Scan backwards for the EOCD signature. Prefer a record whose comment
  // length reaches exactly the end of the file; otherwise take the last one.
  std::optional<uint64_t> found, fallback;
  for (uint64_t i = tail_len - kEocdSize + 1; i-- > 0;) {
    uint32_t sig = 0;
    load_le(tv, i, sig);
    if (sig != kEocdSig) continue;
    uint16_t clen = 0;
    load_le(tv, i + 20, clen);
    if (!fallback) fallback = i;
    if (i + kEocdSize + clen == tail_len) {
      found = i;
      break;
    }
  }
  if (!found) found = fallback;
  if (!found) return Error(w + ": not a zip archive: no end of central directory record");
  uint64_t eocd = *found;
  Cursor c(tv, eocd + 4);
  uint16_t disk = c.read<uint16_t>(), cd_disk = c.read<uint16_t>();
  uint16_t n_here = c.read<uint16_t>(), n_total = c.read<uint16_t>();
  uint32_t cd_size = c.read<uint32_t>(), cd_off = c.read<uint32_t>();
  CentralDirInfo info{cd_off, cd_size, n_total};
  uint64_t eocd_abs = tail_start + eocd;
  uint64_t records_end = eocd_abs;  // the central directory must end before this

  // A zip64 locator sits right before the EOCD (4.3.15).
  uint32_t loc_sig = 0;
  std::vector<uint8_t> loc;
  if (eocd_abs >= 20 && src.read_at(eocd_abs - 20, 20, loc) && load_le(ByteView(loc), 0, loc_sig) &&
      loc_sig == kZip64LocSig) {
    Cursor lc(ByteView(loc), 4);
    uint32_t z_disk = lc.read<uint32_t>();
    uint64_t z_off = lc.read<uint64_t>();
    uint32_t z_disks = lc.read<uint32_t>();
    if (z_disk != 0 || z_disks > 1) return Error(w + ": multi-disk zip64 archives are not supported");
    std::vector<uint8_t> rec;
    if (!src.read_at(z_off, 56, rec))
      return Error(w + ": zip64 end of central directory record at " + hex(z_off) + " is out of bounds");
    Cursor rc{ByteView(rec)};
    if (rc.read<uint32_t>() != kZip64EocdSig)
      return Error(w + ": zip64 end of central directory record at " + hex(z_off) + " has no signature");
    rc.skip(8 + 2 + 2);
    uint32_t d = rc.read<uint32_t>(), dcd = rc.read<uint32_t>();
    uint64_t e_here = rc.read<uint64_t>(), e_total = rc.read<uint64_t>();
    info.size = rc.read<uint64_t>();
    info.offset = rc.read<uint64_t>();
    info.entries = e_total;
    if (d != 0 || dcd != 0 || e_here != e_total) return Error(w + ": multi-disk archives are not supported");
    records_end = z_off;
  } else if (disk != 0 || cd_disk != 0 || n_here != n_total) {
    return Error(w + ": multi-disk archives are not supported");
  }
  if (!in_bounds(records_end, info.offset, info.size))
    return Error(w + ": central directory at " + hex(info.offset) + " (" + std::to_string(info.size) +
                 " bytes) runs past the end records at " + hex(records_end));
  return info;
}

uint32_t name_issues(std::string_view n) {
  uint32_t out = 0;
  if (n.empty()) return kIssueEmptyName;
  if (n[0] == '/' || n[0] == '\\' ||
      (n.size() >= 2 && n[1] == ':' && std::isalpha(static_cast<unsigned char>(n[0]))))
    out |= kIssueAbsolute;
  if (n.find('\\') != std::string_view::npos) out |= kIssueBackslash;
  for (unsigned char c : n)
    if (c < 0x20 || c == 0x7f) out |= kIssueControlChar;
  size_t start = 0;
  while (start <= n.size()) {
    size_t end = n.find_first_of("/\\", start);
    if (end == std::string_view::npos) end = n.size();
    if (n.substr(start, end - start) == "..") out |= kIssueDotDot;
    start = end + 1;
  }
  return out;
}

std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

Expected<std::vector<ZipMember>> parse_central_directory(const ByteSource& src, const CentralDirInfo& info,
                                                         const WheelLimits& limits, const std::string& w) {
  if (info.size > limits.max_central_directory)
    return Error(w + ": central directory of " + std::to_string(info.size) + " bytes exceeds the limit of " +
                 std::to_string(limits.max_central_directory));
  if (info.entries > limits.max_members)
    return Error(w + ": " + std::to_string(info.entries) + " entries exceed the limit of " +
                 std::to_string(limits.max_members));
  // Every entry needs at least 46 bytes, so a count the size cannot hold is a lie.
  if (info.entries > info.size / 46)
    return Error(w + ": central directory of " + std::to_string(info.size) + " bytes cannot hold " +
                 std::to_string(info.entries) + " entries");
  std::vector<uint8_t> cd;
  if (!src.read_at(info.offset, info.size, cd)) return Error(w + ": cannot read the central directory");
  ByteView v(cd);
  std::vector<ZipMember> members;
  members.reserve(static_cast<size_t>(info.entries));
  uint64_t pos = 0;
  for (uint64_t i = 0; i < info.entries; ++i) {
    const std::string where = w + ": central directory entry " + std::to_string(i) + " at " + hex(info.offset + pos);
    Cursor c(v, pos);
    if (c.read<uint32_t>() != kCentralSig) return Error(where + ": bad signature");
    ZipMember m;
    m.index = i;
    const uint16_t made_by = c.read<uint16_t>();
    c.skip(2);  // version needed
    m.flags = c.read<uint16_t>();
    m.method = c.read<uint16_t>();
    c.skip(4);  // time, date
    m.crc32 = c.read<uint32_t>();
    uint32_t csize = c.read<uint32_t>(), usize = c.read<uint32_t>();
    uint16_t name_len = c.read<uint16_t>(), extra_len = c.read<uint16_t>(), comment_len = c.read<uint16_t>();
    uint16_t disk = c.read<uint16_t>();
    c.skip(2);  // internal attributes
    const uint32_t external = c.read<uint32_t>();
    // Unix permission bits, when the entry was made on Unix (4.4.2: host 3).
    if ((made_by >> 8) == 3 && (external >> 16) != 0) m.unix_mode = (external >> 16) & 07777;
    uint32_t off = c.read<uint32_t>();
    if (!c.ok()) return Error(where + ": truncated");
    auto name = slice(v, c.offset(), name_len);
    auto extra = slice(v, c.offset() + name_len, extra_len);
    if (!name || !extra || !in_bounds(v.size(), c.offset() + name_len + extra_len, comment_len))
      return Error(where + ": name, extra field or comment runs past the central directory");
    m.name.assign(reinterpret_cast<const char*>(name->data()), name->size());
    m.compressed_size = csize;
    m.uncompressed_size = usize;
    m.local_header_offset = off;
    // Zip64 extended information (4.5.3): only the fields whose 32-bit
    // slot is 0xffffffff are present, in this order.
    uint64_t xp = 0;
    while (xp + 4 <= extra->size()) {
      uint16_t id = 0, len = 0;
      load_le(*extra, xp, id);
      load_le(*extra, xp + 2, len);
      auto body = slice(*extra, xp + 4, len);
      if (!body) break;  // a malformed extra field; libzip decides whether that is fatal
      if (id == 0x0001) {
        Cursor zc(*body);
        if (usize == 0xffffffffu) m.uncompressed_size = zc.read<uint64_t>();
        if (csize == 0xffffffffu) m.compressed_size = zc.read<uint64_t>();
        if (off == 0xffffffffu) m.local_header_offset = zc.read<uint64_t>();
        if (!zc.ok()) return Error(where + ": zip64 extra field too short");
        m.zip64 = true;
      }
      xp += 4 + len;
    }
    if (disk != 0 && disk != 0xffff) return Error(where + ": member on disk " + std::to_string(disk));
    m.is_dir = !m.name.empty() && m.name.back() == '/';
    m.issues = name_issues(m.name);
    members.push_back(std::move(m));
    pos = c.offset() + name_len + extra_len + comment_len;
  }
  // Duplicate and case-colliding names.
  std::map<std::string, std::vector<size_t>, std::less<>> by_name, by_lower;
  for (size_t i = 0; i < members.size(); ++i) {
    by_name[members[i].name].push_back(i);
    by_lower[ascii_lower(members[i].name)].push_back(i);
  }
  for (const auto& [_, idx] : by_name)
    if (idx.size() > 1)
      for (size_t i : idx) members[i].issues |= kIssueDuplicate;
  for (const auto& [_, idx] : by_lower) {
    if (idx.size() < 2) continue;
    for (size_t i : idx)
      for (size_t j : idx)
        if (members[i].name != members[j].name) members[i].issues |= kIssueCaseCollision;
  }
  // Local headers (4.3.7): the name there must be the same.
  std::vector<uint8_t> lh, lname;
  // [local header, end of data) of each member whose local header reads.
  struct Span {
    uint64_t start, end;
    size_t member;
  };
  std::vector<Span> spans;
  spans.reserve(members.size());
  for (size_t i = 0; i < members.size(); ++i) {
    ZipMember& m = members[i];
    uint32_t sig = 0;
    uint16_t ln = 0, el = 0;
    if (!src.read_at(m.local_header_offset, 30, lh) || !load_le(ByteView(lh), 0, sig) || sig != kLocalSig ||
        !load_le(ByteView(lh), 26, ln) || !load_le(ByteView(lh), 28, el)) {
      m.issues |= kIssueBadLocalHeader;
      continue;
    }
    if (!src.read_at(m.local_header_offset + 30, ln, lname)) {
      m.issues |= kIssueBadLocalHeader;
      continue;
    }
    if (std::string_view(reinterpret_cast<const char*>(lname.data()), lname.size()) != m.name)
      m.issues |= kIssueLocalNameMismatch;
    uint64_t end = 0;
    if (add_overflow(m.local_header_offset + 30 + ln + el, m.compressed_size, end)) end = UINT64_MAX;
    spans.push_back({m.local_header_offset, end, i});
  }
  // Each member's local header and data must end before the next member's
  // local header starts, and before the central directory. Members that
  // share bytes are how a small archive inflates to far more than its size
  // ("A better zip bomb", D. Fifield 2019: 1,000 members quoting one 64 MiB
  // deflate kernel); CPython's zipfile refuses them too ("Overlapped
  // entries"). No tool that writes wheels produces them.
  std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) {
    return a.start != b.start ? a.start < b.start : a.member < b.member;
  });
  auto describe = [&](const Span& s) {
    return "'" + printable(members[s.member].name) + "' (local header at " + hex(s.start) + ")";
  };
  for (size_t k = 0; k < spans.size(); ++k) {
    const Span& a = spans[k];
    if (k + 1 < spans.size() && a.end > spans[k + 1].start)
      return Error(w + ": members " + describe(a) + ", whose data runs to " + hex(a.end) + ", and " +
                   describe(spans[k + 1]) + " overlap: a zip bomb or a damaged archive; refused");
    if (a.end > info.offset && a.start < info.offset)
      return Error(w + ": member " + describe(a) + " has data running to " + hex(a.end) +
                   ", into the central directory at " + hex(info.offset) + ": a zip bomb or a damaged archive; refused");
  }
  return members;
}

}  // namespace

std::string describe_issues(uint32_t issues) {
  static const std::pair<uint32_t, const char*> kNames[] = {
      {kIssueEmptyName, "empty-name"},        {kIssueAbsolute, "absolute"},
      {kIssueDotDot, "dot-dot"},              {kIssueBackslash, "backslash"},
      {kIssueControlChar, "control-char"},    {kIssueDuplicate, "duplicate"},
      {kIssueCaseCollision, "case-collision"}, {kIssueLocalNameMismatch, "local-name-mismatch"},
      {kIssueBadLocalHeader, "bad-local-header"},
  };
  std::string out;
  for (const auto& [bit, name] : kNames)
    if (issues & bit) out += (out.empty() ? "" : ",") + std::string(name);
  return out;
}

struct Wheel::Impl {
  std::string path;
  WheelLimits limits;
  Blob memory;  // open_memory: keeps the bytes alive for libzip
  std::unique_ptr<ByteSource> src;
  std::unique_ptr<zip_t, ZipCloser> za;
  std::vector<ZipMember> members;
  std::mutex mu;  ///< guards total_read and libzip's handle (read_admitted on several threads)
  uint64_t total_read = 0;

  std::string where(const ZipMember& m) const {
    return path + ": " + printable(m.name) + " (local header at " + hex(m.local_header_offset) + ")";
  }
};

Wheel::Wheel(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Wheel::Wheel(Wheel&&) noexcept = default;
Wheel& Wheel::operator=(Wheel&&) noexcept = default;
Wheel::~Wheel() = default;

namespace {

// Our parse of the central directory: done before libzip sees the archive,
// so malformed input gets our (more precise) messages.
Expected<std::vector<ZipMember>> read_members(const ByteSource& src, const WheelLimits& limits,
                                              const std::string& w) {
  auto info = find_central_directory(src, w);
  if (!info) return info.error();
  return parse_central_directory(src, *info, limits, w);
}

// libzip must see the same entries, in the same order, or indices would
// point at different members.
Status cross_check(zip_t* za, const std::vector<ZipMember>& members, const std::string& w) {
  zip_int64_t n = zip_get_num_entries(za, 0);
  if (n < 0 || static_cast<uint64_t>(n) != members.size())
    return Error(w + ": libzip sees " + std::to_string(n) + " entries, the central directory has " +
                 std::to_string(members.size()));
  for (const auto& m : members) {
    const char* zn = zip_get_name(za, m.index, ZIP_FL_ENC_RAW);
    // zip_get_name gives a C string: a name with a NUL byte compares by
    // its prefix, which is all libzip can report.
    if (!zn || std::string_view(zn) != std::string_view(m.name.c_str()))
      return Error(w + ": central directory entry " + std::to_string(m.index) +
                   ": libzip reads a different name");
  }
  return Ok{};
}

}  // namespace

Expected<Wheel> Wheel::open(const std::string& path, const WheelLimits& limits) {
  auto impl = std::make_unique<Impl>();
  impl->path = path;
  impl->limits = limits;
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Error(path + ": cannot open: " + std::strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    return Error(path + ": not a regular file");
  }
  impl->src = std::make_unique<FdSource>(fd, static_cast<uint64_t>(st.st_size));
  auto members = read_members(*impl->src, limits, path);
  if (!members) return members.error();
  int code = 0;
  zip_t* za = zip_open(path.c_str(), ZIP_RDONLY, &code);
  if (!za) return Error(path + ": libzip: " + libzip_open_error(code));
  impl->za.reset(za);
  auto checked = cross_check(za, *members, path);
  if (!checked) return checked.error();
  impl->members = std::move(*members);
  return Wheel(std::move(impl));
}

Expected<Wheel> Wheel::open_memory(Blob bytes, std::string display_name, const WheelLimits& limits) {
  auto impl = std::make_unique<Impl>();
  impl->path = std::move(display_name);
  impl->limits = limits;
  impl->memory = std::move(bytes);
  ByteView v = impl->memory.view();
  impl->src = std::make_unique<MemSource>(v);
  auto members = read_members(*impl->src, limits, impl->path);
  if (!members) return members.error();
  zip_error_t err;
  zip_error_init(&err);
  zip_source_t* zs = zip_source_buffer_create(v.data(), v.size(), 0, &err);
  if (!zs) {
    std::string msg = zip_error_strerror(&err);
    zip_error_fini(&err);
    return Error(impl->path + ": libzip: " + msg);
  }
  zip_t* za = zip_open_from_source(zs, ZIP_RDONLY, &err);
  if (!za) {
    std::string msg = zip_error_strerror(&err);
    zip_error_fini(&err);
    zip_source_free(zs);
    return Error(impl->path + ": libzip: " + msg);
  }
  zip_error_fini(&err);
  impl->za.reset(za);
  auto checked = cross_check(za, *members, impl->path);
  if (!checked) return checked.error();
  impl->members = std::move(*members);
  return Wheel(std::move(impl));
}

const std::string& Wheel::path() const { return impl_->path; }
uint64_t Wheel::archive_size() const { return impl_->src->size(); }
const std::vector<ZipMember>& Wheel::members() const { return impl_->members; }
uint64_t Wheel::total_read() const { return impl_->total_read; }
const WheelLimits& Wheel::limits() const { return impl_->limits; }

uint64_t Wheel::total_read_limit() const {
  const WheelLimits& L = impl_->limits;
  const uint64_t size = impl_->src->size();
  uint64_t scaled = L.max_total_ratio && size > UINT64_MAX / L.max_total_ratio ? UINT64_MAX : size * L.max_total_ratio;
  return std::min(L.max_total_read, std::max(L.total_ratio_floor, scaled));
}

const ZipMember* Wheel::find(std::string_view name) const {
  for (const auto& m : impl_->members)
    if (m.name == name) return &m;
  return nullptr;
}

namespace {

struct ZipFileCloser {
  void operator()(zip_file_t* f) const {
    if (f) zip_fclose(f);
  }
};
using ZipFilePtr = std::unique_ptr<zip_file_t, ZipFileCloser>;

bool write_all(int fd, const uint8_t* p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

// Where a member's data starts: after its local header (4.3.7: 30 bytes,
// then the name and the extra field, whose lengths the local header gives,
// not the central directory's).
Expected<uint64_t> data_offset(const ByteSource& src, const ZipMember& m) {
  std::vector<uint8_t> lh;
  uint32_t sig = 0;
  uint16_t ln = 0, el = 0;
  if (!src.read_at(m.local_header_offset, 30, lh) || !load_le(ByteView(lh), 0, sig) || sig != kLocalSig ||
      !load_le(ByteView(lh), 26, ln) || !load_le(ByteView(lh), 28, el))
    return Error("no local header at " + hex(m.local_header_offset));
  const uint64_t start = m.local_header_offset + 30 + ln + el;
  if (!in_bounds(src.size(), start, m.compressed_size))
    return Error("data (" + std::to_string(m.compressed_size) + " bytes at " + hex(start) +
                 ") runs past the end of the archive");
  return start;
}

// Decodes a stored (0) or deflate (8) member with ISA-L, reading its
// compressed bytes in `chunk` pieces. Produces at most `cap` bytes: into
// `direct` (room for cap bytes) when given, else through `sink` in pieces
// of at most `chunk`. Returns the count produced and sets *crc to the
// CRC-32 of what was produced (ISO 3309, as zip stores it, 4.4.7).
// Errors: a corrupt deflate stream (ISA-L's code, and the output offset),
// one that ends before its end-of-block, or a sink that fails.
template <typename Sink>
Expected<uint64_t> decode_member(const ByteSource& src, const ZipMember& m, uint64_t cap, uint64_t chunk,
                                 uint8_t* direct, Sink&& sink, uint32_t* crc, Digest* digest = nullptr) {
  auto start = data_offset(src, m);
  if (!start) return start.error();
  chunk = std::max<uint64_t>(chunk, 4096);
  std::vector<uint8_t> in;
  std::vector<uint8_t> out(direct ? 0 : static_cast<size_t>(std::min(chunk, std::max<uint64_t>(cap, 1))));
  uint64_t in_pos = 0, produced = 0;
  auto next_input = [&](uint64_t max) -> bool {
    const uint64_t n = std::min(max, m.compressed_size - in_pos);
    if (!src.read_at(*start + in_pos, n, in)) return false;
    in_pos += n;
    return true;
  };
  if (m.method == 0) {
    uint32_t c = 0;
    const uint64_t total = std::min(m.compressed_size, cap);
    while (produced < total) {
      const uint64_t n = std::min(chunk, total - produced);
      if (!next_input(n)) return Error("cannot read the data at " + hex(*start + in_pos));
      c = crc32_gzip_refl(c, in.data(), in.size());
      if (digest) digest->update(ByteView(in.data(), in.size()));
      if (direct) std::memcpy(direct + produced, in.data(), in.size());
      else if (!sink(in.data(), in.size())) return Error("cannot write the temporary file: " + std::string(std::strerror(errno)));
      produced += in.size();
    }
    *crc = c;
    return produced;
  }
  auto state = std::make_unique<inflate_state>();
  isal_inflate_init(state.get());
  state->crc_flag = ISAL_GZIP_NO_HDR;  // raw deflate (4.4.5 method 8); ISA-L keeps the CRC-32 of the output
  while (state->block_state != ISAL_BLOCK_FINISH && produced < cap) {
    if (state->avail_in == 0 && in_pos < m.compressed_size) {
      if (!next_input(chunk)) return Error("cannot read the data at " + hex(*start + in_pos));
      state->next_in = in.data();
      state->avail_in = static_cast<uint32_t>(in.size());
    }
    const uint64_t room = std::min<uint64_t>({cap - produced, direct ? UINT32_MAX : out.size(), UINT32_MAX});
    uint8_t* dst = direct ? direct + produced : out.data();
    state->next_out = dst;
    state->avail_out = static_cast<uint32_t>(room);
    const uint32_t in_before = state->avail_in;
    const int rc = isal_inflate(state.get());
    if (rc < 0)
      return Error("corrupt deflate data (ISA-L error " + std::to_string(rc) + ") after " + std::to_string(produced) +
                   " output bytes");
    const uint64_t wrote = room - state->avail_out;
    if (digest && wrote) digest->update(ByteView(dst, static_cast<size_t>(wrote)));
    if (!direct && wrote && !sink(dst, static_cast<size_t>(wrote)))
      return Error("cannot write the temporary file: " + std::string(std::strerror(errno)));
    produced += wrote;
    if (wrote == 0 && state->avail_in == in_before && in_pos >= m.compressed_size &&
        state->block_state != ISAL_BLOCK_FINISH)
      return Error("the deflate stream ends after " + std::to_string(m.compressed_size) +
                   " compressed bytes, before its last block (" + std::to_string(produced) + " bytes decoded)");
  }
  *crc = state->crc;
  return produced;
}

bool isal_method(const ZipMember& m) { return m.method == 0 || m.method == 8; }

}  // namespace

Expected<Blob> Wheel::read(const ZipMember& m, Digest* digest) {
  if (Status s = admit_read(m); !s) return s.error();
  return read_admitted(m, digest);
}

Status Wheel::admit_read(const ZipMember& m) {
  Impl& I = *impl_;
  const WheelLimits& L = I.limits;
  const std::string where = I.where(m);
  if (m.index >= I.members.size() || I.members[m.index].name != m.name)
    return Error(where + ": not a member of this wheel");
  if (m.encrypted()) return Error(where + ": encrypted member");
  if (m.uncompressed_size > L.max_member_size)
    return Error(where + ": declared size " + std::to_string(m.uncompressed_size) +
                 " bytes exceeds the limit of " + std::to_string(L.max_member_size));
  if (m.uncompressed_size > L.ratio_min_size &&
      (m.compressed_size == 0 || m.uncompressed_size / m.compressed_size > L.max_ratio))
    return Error(where + ": declared compression ratio " + std::to_string(m.uncompressed_size) + "/" +
                 std::to_string(m.compressed_size) + " exceeds " + std::to_string(L.max_ratio) +
                 ":1 (zip bomb?)");
  std::lock_guard<std::mutex> lock(I.mu);
  uint64_t budget_end = 0;
  const uint64_t limit = total_read_limit();
  if (add_overflow(I.total_read, m.uncompressed_size, budget_end) || budget_end > limit)
    return Error(where + ": reading " + std::to_string(m.uncompressed_size) + " more bytes (after " +
                 std::to_string(I.total_read) + ") would pass the " + std::to_string(limit) +
                 " decompressed bytes this wheel may inflate to (" + std::to_string(L.max_total_ratio) +
                 " times its " + std::to_string(archive_size()) + " bytes, at least " +
                 std::to_string(L.total_ratio_floor) + ", at most " + std::to_string(L.max_total_read) +
                 "): a zip bomb?");
  I.total_read = budget_end;
  return Ok{};
}

Expected<Blob> Wheel::read_admitted(const ZipMember& m, Digest* digest) {
  Impl& I = *impl_;
  const WheelLimits& L = I.limits;
  const std::string where = I.where(m);
  if (m.index >= I.members.size() || I.members[m.index].name != m.name)
    return Error(where + ": not a member of this wheel");
  const bool spill = m.uncompressed_size > L.in_memory_threshold;
  if (isal_method(m)) return read_isal(m, spill, digest);

  std::lock_guard<std::mutex> lock(I.mu);  // libzip's handle is not thread-safe
  ZipFilePtr zf(zip_fopen_index(I.za.get(), m.index, 0));
  if (!zf) return Error(where + ": " + zip_strerror(I.za.get()));

  int fd = -1;
  if (spill) {
    auto t = make_temp_file();
    if (!t) return t.error().context(where);
    fd = *t;
  }
  auto fail = [&](const std::string& msg) -> Expected<Blob> {
    if (fd >= 0) close(fd);
    return Error(where + ": " + msg);
  };

  // Read until libzip reports the end (that is when it checks the CRC),
  // but never more than one byte past the declared size.
  const uint64_t cap = m.uncompressed_size + 1;
  const uint64_t chunk = std::max<uint64_t>(L.chunk_size, 1);
  std::vector<uint8_t> heap;
  std::vector<uint8_t> buf(spill ? static_cast<size_t>(chunk) : 0);
  if (!spill) heap.reserve(static_cast<size_t>(std::min(m.uncompressed_size, L.in_memory_threshold)));
  uint64_t got = 0;
  for (;;) {
    uint64_t want = std::min(chunk, cap - got);
    if (want == 0) break;
    uint8_t* dst;
    if (spill) {
      dst = buf.data();
    } else {
      heap.resize(static_cast<size_t>(got + want));
      dst = heap.data() + got;
    }
    zip_int64_t r = zip_fread(zf.get(), dst, want);
    if (r < 0) return fail(std::string("decompression failed: ") + zip_file_strerror(zf.get()));
    if (r == 0) break;
    if (digest) digest->update(ByteView(dst, static_cast<size_t>(r)));
    if (spill && !write_all(fd, dst, static_cast<size_t>(r)))
      return fail(std::string("cannot write the temporary file: ") + std::strerror(errno));
    got += static_cast<uint64_t>(r);
  }
  if (got > m.uncompressed_size)
    return fail("data continues past the declared uncompressed size of " + std::to_string(m.uncompressed_size) +
                " bytes");
  if (got < m.uncompressed_size)
    return fail("data ends after " + std::to_string(got) + " bytes, declared " +
                std::to_string(m.uncompressed_size));
  if (!spill) {
    heap.resize(static_cast<size_t>(got));
    return Blob::from_vector(std::move(heap));
  }
  auto blob = Blob::map_fd(fd, got, where);  // takes fd, even on failure
  if (!blob) return blob.error();
  return blob;
}

Expected<uint64_t> Wheel::data_offset(const ZipMember& m) const {
  auto o = cuwheel::data_offset(*impl_->src, m);
  if (!o) return o.error().context(impl_->where(m));
  return o;
}

bool Wheel::file_backed() const { return impl_->memory.size() == 0 && dynamic_cast<const FdSource*>(impl_->src.get()); }

Expected<Blob> Wheel::read_isal(const ZipMember& m, bool spill, Digest* digest) {
  Impl& I = *impl_;
  const std::string where = I.where(m);
  // Never more than one byte past the declared size: a stream that goes on
  // is reported, not followed.
  const uint64_t cap = m.uncompressed_size + 1;
  uint32_t crc = 0;
  int fd = -1;
  std::vector<uint8_t> heap;
  Expected<uint64_t> got = uint64_t{0};
  if (spill) {
    auto t = make_temp_file();
    if (!t) return t.error().context(where);
    fd = *t;
    got = decode_member(*I.src, m, cap, I.limits.chunk_size, nullptr,
                        [&](const uint8_t* p, size_t n) { return write_all(fd, p, n); }, &crc, digest);
  } else {
    heap.resize(static_cast<size_t>(cap));
    got = decode_member(*I.src, m, cap, I.limits.chunk_size, heap.data(),
                        [](const uint8_t*, size_t) { return true; }, &crc, digest);
  }
  auto fail = [&](const std::string& msg) -> Expected<Blob> {
    if (fd >= 0) close(fd);
    return Error(where + ": " + msg);
  };
  if (!got) return fail(got.error().message());
  if (*got > m.uncompressed_size)
    return fail("data continues past the declared uncompressed size of " + std::to_string(m.uncompressed_size) +
                " bytes");
  if (*got < m.uncompressed_size)
    return fail("data ends after " + std::to_string(*got) + " bytes, declared " + std::to_string(m.uncompressed_size));
  if (crc != m.crc32) return fail("CRC-32 mismatch: the data gives " + hex(crc) + ", the central directory " + hex(m.crc32));
  if (!spill) {
    heap.resize(static_cast<size_t>(*got));
    return Blob::from_vector(std::move(heap));
  }
  auto blob = Blob::map_fd(fd, *got, where);  // takes fd, even on failure
  if (!blob) return blob.error();
  return blob;
}

Expected<std::vector<uint8_t>> Wheel::peek(const ZipMember& m, uint64_t n) {
  Impl& I = *impl_;
  const std::string where = I.where(m);
  if (m.index >= I.members.size() || I.members[m.index].name != m.name)
    return Error(where + ": not a member of this wheel");
  if (m.encrypted()) return Error(where + ": encrypted member");
  n = std::min({n, m.uncompressed_size, I.limits.in_memory_threshold});
  // One lock for the count and for libzip's handle; a peek is small.
  std::lock_guard<std::mutex> lock(I.mu);
  if (I.total_read + n > total_read_limit())
    return Error(where + ": peek would pass the " + std::to_string(total_read_limit()) +
                 " decompressed bytes this wheel may inflate to");
  if (isal_method(m)) {
    std::vector<uint8_t> out(static_cast<size_t>(n));
    uint32_t crc = 0;
    auto got = decode_member(*I.src, m, n, std::min<uint64_t>(I.limits.chunk_size, std::max<uint64_t>(n, 4096)),
                             out.data(), [](const uint8_t*, size_t) { return true; }, &crc);
    if (!got) return Error(where + ": " + got.error().message());
    out.resize(static_cast<size_t>(*got));
    I.total_read += *got;
    return out;
  }
  ZipFilePtr zf(zip_fopen_index(I.za.get(), m.index, 0));
  if (!zf) return Error(where + ": " + zip_strerror(I.za.get()));
  std::vector<uint8_t> out(static_cast<size_t>(n));
  uint64_t got = 0;
  while (got < n) {
    zip_int64_t r = zip_fread(zf.get(), out.data() + got, n - got);
    if (r < 0) return Error(where + ": decompression failed: " + zip_file_strerror(zf.get()));
    if (r == 0) break;
    got += static_cast<uint64_t>(r);
  }
  out.resize(static_cast<size_t>(got));
  I.total_read += got;
  return out;
}

}  // namespace cuwheel
