// The wheel writer (include/cuwheel/wheel/writer.h). Record layouts are
// APPNOTE.TXT 6.3.x: local file header 4.3.7 (30 bytes + name + extra),
// central directory header 4.3.12 (46 bytes + name + extra + comment),
// ZIP64 extended information 4.5.3, ZIP64 end of central directory
// record 4.3.14 (56 bytes) and locator 4.3.15 (20), end of central
// directory record 4.3.16 (22).
#include "cuwheel/wheel/writer.h"

#include <fcntl.h>
#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <memory>
#include <optional>
#include <set>
#include <thread>

#include "cuwheel/base/digest.h"
#include "cuwheel/base/fileio.h"
#include "cuwheel/base/source.h"

namespace cuwheel {

namespace {

constexpr uint32_t kLocalSig = 0x04034b50, kCentralSig = 0x02014b50, kEocdSig = 0x06054b50,
                   kZip64EocdSig = 0x06064b50, kZip64LocSig = 0x07064b50;
constexpr uint64_t kMax32 = 0xffffffffu;

struct Buf {
  std::vector<uint8_t> b;
  void u16(uint16_t v) { b.push_back(static_cast<uint8_t>(v)); b.push_back(static_cast<uint8_t>(v >> 8)); }
  void u32(uint32_t v) { u16(static_cast<uint16_t>(v)); u16(static_cast<uint16_t>(v >> 16)); }
  void u64(uint64_t v) { u32(static_cast<uint32_t>(v)); u32(static_cast<uint32_t>(v >> 32)); }
  void str(const std::string& s) { b.insert(b.end(), s.begin(), s.end()); }
};

// What goes into the archive for one entry.
struct Entry {
  std::string name;
  uint16_t method = 8;
  uint32_t crc = 0;
  uint64_t csize = 0, usize = 0;
  uint32_t mode = 0644;
  // Where its compressed bytes are: the input wheel (keep) or a temporary
  // file of our own (fd), from `from`.
  int fd = -1;
  uint64_t from = 0;
  bool own_fd = false;
  std::string hash;  // RECORD's sha256=...
  uint64_t offset = 0;  // of its local header in the output
};

std::string record_hash(const std::array<uint8_t, 32>& d) {
  return "sha256=" + base64url_nopad(ByteView(d.data(), d.size()));
}

// Deflates a new member (from its file or bytes) into a temporary file.
Status deflate_member(const OutMember& m, Entry& e) {
  int in = -1;
  if (m.bytes.empty() && !m.file.empty()) {
    in = ::open(m.file.c_str(), O_RDONLY | O_CLOEXEC);
    if (in < 0) return Error(m.file + ": open: " + std::strerror(errno));
  }
  auto t = make_temp_file();
  if (!t) {
    if (in >= 0) ::close(in);
    return t.error().context(m.name);
  }
  e.fd = *t;
  e.own_fd = true;
  auto sha = Digest::create("sha256");
  if (!sha) return sha.error();
  auto state = std::make_unique<isal_zstream>();
  isal_deflate_init(state.get());
  std::vector<uint8_t> level(ISAL_DEF_LVL1_DEFAULT);
  state->level = 1;
  state->level_buf = level.data();
  state->level_buf_size = static_cast<uint32_t>(level.size());
  std::vector<uint8_t> inbuf(1u << 20), outbuf(1u << 20);
  uint64_t pos = 0, written = 0;
  uint32_t crc = 0;
  bool last = false;
  while (!last || state->internal_state.state != ZSTATE_END) {
    if (state->avail_in == 0 && !last) {
      size_t n = 0;
      if (in >= 0) {
        ssize_t r;
        do r = ::read(in, inbuf.data(), inbuf.size());
        while (r < 0 && errno == EINTR);
        if (r < 0) {
          ::close(in);
          return Error(m.file + ": read: " + std::strerror(errno));
        }
        n = static_cast<size_t>(r);
        state->next_in = inbuf.data();
      } else {
        n = std::min<size_t>(inbuf.size(), m.bytes.size() - pos);
        state->next_in = const_cast<uint8_t*>(m.bytes.data() + pos);
      }
      crc = crc32_gzip_refl(crc, state->next_in, n);
      sha->update(ByteView(state->next_in, n));
      pos += n;
      state->avail_in = static_cast<uint32_t>(n);
      last = n == 0 || (in < 0 && pos == m.bytes.size());
      state->end_of_stream = last ? 1 : 0;
      state->flush = NO_FLUSH;
    }
    state->next_out = outbuf.data();
    state->avail_out = static_cast<uint32_t>(outbuf.size());
    if (int rc = isal_deflate(state.get()); rc != COMP_OK) {
      if (in >= 0) ::close(in);
      return Error(m.name + ": deflate failed (ISA-L error " + std::to_string(rc) + ")");
    }
    const size_t got = outbuf.size() - state->avail_out;
    if (got) {
      if (auto s = pwrite_all(e.fd, written, outbuf.data(), got, m.name + " (temporary file)"); !s) {
        if (in >= 0) ::close(in);
        return s;
      }
      written += got;
    }
  }
  if (in >= 0) ::close(in);
  e.method = 8;
  e.crc = crc;
  e.usize = pos;
  e.csize = written;
  e.from = 0;
  const std::string d = sha->finish();
  std::array<uint8_t, 32> a{};
  std::memcpy(a.data(), d.data(), std::min<size_t>(32, d.size()));
  e.hash = record_hash(a);
  return Ok{};
}

// Wheel order: everything but the .dist-info folder by name, then the
// .dist-info folder by name, RECORD last.
bool in_dist_info(const std::string& n) {
  const std::string top = n.substr(0, n.find('/'));
  return top.size() > 10 && top.compare(top.size() - 10, 10, ".dist-info") == 0 && top.size() < n.size();
}

void dos_time(uint64_t t, uint16_t& time, uint16_t& date) {
  const uint64_t lo = 315532800, hi = 4354819199;  // 1980-01-01 .. 2107-12-31
  time_t tt = static_cast<time_t>(std::clamp(t, lo, hi));
  struct tm tm{};
  gmtime_r(&tt, &tm);
  time = static_cast<uint16_t>((tm.tm_hour << 11) | (tm.tm_min << 5) | (tm.tm_sec / 2));
  date = static_cast<uint16_t>(((tm.tm_year - 80) << 9) | ((tm.tm_mon + 1) << 5) | tm.tm_mday);
}

bool ascii(const std::string& s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

// RECORD's CSV: a field with a comma, a quote or a line break is quoted.
std::string csv(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string o = "\"";
  for (char c : s) o += c == '"' ? std::string("\"\"") : std::string(1, c);
  return o + "\"";
}

}  // namespace

Expected<WheelWriteStats> write_wheel(Wheel& in, std::vector<OutMember> members, const std::string& record,
                                      const Record* input_record, const std::string& out,
                                      const WheelWriteOptions& o) {
  if (!in.file_backed()) return Error(in.path() + ": kept members can be copied only from a wheel opened from a file");
  members.erase(std::remove_if(members.begin(), members.end(), [&](const OutMember& m) { return m.name == record; }),
                members.end());
  std::set<std::string> names;
  for (const auto& m : members) {
    if (m.name.empty() || m.name.front() == '/') return Error("member name '" + printable(m.name) + "': empty or absolute");
    if (!names.insert(m.name).second) return Error("member " + printable(m.name) + " given twice");
  }
  std::stable_sort(members.begin(), members.end(), [](const OutMember& a, const OutMember& b) {
    const bool da = in_dist_info(a.name), db = in_dist_info(b.name);
    return da != db ? db : a.name < b.name;
  });

  std::vector<Entry> entries(members.size());
  int src = ::open(in.path().c_str(), O_RDONLY | O_CLOEXEC);
  if (src < 0) return Error(in.path() + ": open: " + std::strerror(errno));
  struct Closer {
    std::vector<Entry>& e;
    int src;
    ~Closer() {
      for (auto& x : e)
        if (x.own_fd && x.fd >= 0) ::close(x.fd);
      ::close(src);
    }
  } closer{entries, src};

  // Kept members: hashed (and checked against the input's RECORD) from
  // their decoded bytes; copied raw.
  for (size_t i = 0; i < members.size(); ++i) {
    const OutMember& m = members[i];
    Entry& e = entries[i];
    e.name = m.name;
    e.mode = m.mode;
    if (!m.keep) continue;
    auto off = in.data_offset(*m.keep);
    if (!off) return off.error();
    e.method = m.keep->method;
    e.crc = m.keep->crc32;
    e.csize = m.keep->compressed_size;
    e.usize = m.keep->uncompressed_size;
    e.fd = src;
    e.from = *off;
    if (m.digest.rfind("sha256=", 0) == 0) {
      e.hash = m.digest;  // read and checked by the caller: not decoded again
      continue;
    }
    auto bytes = in.read(*m.keep);
    if (!bytes) return bytes.error();
    // Hashed in pieces whose pages are let go once read, so a member of
    // gigabytes does not stay resident (Blob::release); the input's RECORD
    // digest (any algorithm it names) is computed in the same pass.
    const RecordEntry* re = input_record ? input_record->find(m.keep->name) : nullptr;
    if (re && re->hash_algorithm.empty()) re = nullptr;
    auto ours = Digest::create("sha256");
    if (!ours) return ours.error();
    std::optional<Digest> theirs;
    if (re && re->hash_algorithm != "sha256") {
      auto d = Digest::create(re->hash_algorithm);
      if (!d) return d.error().context(in.path() + ": " + printable(m.keep->name) + ": RECORD line " + std::to_string(re->line));
      theirs = std::move(*d);
    }
    const ByteView v = bytes->view();
    constexpr uint64_t kPiece = 16ull << 20;
    for (uint64_t off = 0; off < v.size(); off += kPiece) {
      const ByteView piece = v.subspan(off, std::min<uint64_t>(kPiece, v.size() - off));
      ours->update(piece);
      if (theirs) theirs->update(piece);
      bytes->release(off, piece.size());
    }
    const std::string raw = ours->finish();
    std::array<uint8_t, 32> digest{};
    std::copy(raw.begin(), raw.end(), digest.begin());
    if (re) {
      const std::string got = theirs ? theirs->finish() : raw;
      const std::string where = in.path() + ": " + printable(m.keep->name) + ": RECORD line " + std::to_string(re->line);
      if (re->size && *re->size != v.size())
        return Error(where + ": size mismatch: RECORD says " + std::to_string(*re->size) + " bytes, member has " +
                     std::to_string(v.size()));
      auto expected = base64url_decode(re->hash_value);
      if (!expected) return Error(where + ": digest '" + printable(re->hash_value) + "' is not URL-safe base64");
      if (*expected != got) {
        ByteView gv(reinterpret_cast<const uint8_t*>(got.data()), got.size());
        return Error(where + ": " + re->hash_algorithm + " mismatch: RECORD says " + printable(re->hash_value) +
                     ", member has " + base64url_nopad(gv));
      }
    }
    e.hash = record_hash(digest);
  }
  // New members: deflated in parallel.
  {
    std::vector<size_t> todo;
    for (size_t i = 0; i < members.size(); ++i)
      if (!members[i].keep) todo.push_back(i);
    unsigned threads = o.threads ? o.threads : std::min(8u, std::max(1u, std::thread::hardware_concurrency()));
    threads = static_cast<unsigned>(std::min<size_t>(threads, std::max<size_t>(todo.size(), 1)));
    std::vector<Status> status(todo.size(), Ok{});
    std::atomic<size_t> next{0};
    auto work = [&] {
      for (size_t k; (k = next++) < todo.size();) status[k] = deflate_member(members[todo[k]], entries[todo[k]]);
    };
    std::vector<std::thread> pool;
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
    for (auto& s : status)
      if (!s) return s.error();
  }
  // RECORD, last.
  {
    std::string text;
    for (const auto& e : entries) text += csv(e.name) + "," + e.hash + "," + std::to_string(e.usize) + "\n";
    text += csv(record) + ",,\n";
    OutMember r;
    r.name = record;
    r.bytes.assign(text.begin(), text.end());
    Entry e;
    e.name = record;
    if (auto s = deflate_member(r, e); !s) return s.error();
    entries.push_back(e);
  }

  // The archive.
  auto file = AtomicFile::create(out);
  if (!file) return file.error();
  const int dst = file->fd();
  const std::string& tmp = file->temp_path();
  uint16_t dtime = 0, ddate = 0;
  dos_time(o.timestamp, dtime, ddate);
  uint64_t pos = 0;
  for (auto& e : entries) {
    e.offset = pos;
    const bool z64 = o.force_zip64 || e.csize >= kMax32 || e.usize >= kMax32;
    Buf h;
    h.u32(kLocalSig);
    h.u16(z64 ? 45 : 20);
    h.u16(ascii(e.name) ? 0 : 0x0800);  // bit 11: the name is UTF-8
    h.u16(e.method);
    h.u16(dtime);
    h.u16(ddate);
    h.u32(e.crc);
    h.u32(z64 ? static_cast<uint32_t>(kMax32) : static_cast<uint32_t>(e.csize));
    h.u32(z64 ? static_cast<uint32_t>(kMax32) : static_cast<uint32_t>(e.usize));
    h.u16(static_cast<uint16_t>(e.name.size()));
    h.u16(z64 ? 20 : 0);
    h.str(e.name);
    if (z64) {
      h.u16(0x0001);
      h.u16(16);
      h.u64(e.usize);
      h.u64(e.csize);
    }
    if (auto s = pwrite_all(dst, pos, h.b.data(), h.b.size(), tmp); !s) return s.error();
    pos += h.b.size();
    if (auto s = copy_file_bytes(e.fd, e.from, dst, pos, e.csize, tmp); !s) return s.error();
    pos += e.csize;
  }
  const uint64_t cd_start = pos;
  Buf cd;
  for (const auto& e : entries) {
    const bool zu = o.force_zip64 || e.usize >= kMax32, zc = o.force_zip64 || e.csize >= kMax32,
               zo = o.force_zip64 || e.offset >= kMax32;
    const uint16_t extra = static_cast<uint16_t>((zu || zc || zo) ? 4 + 8 * (zu + zc + zo) : 0);
    cd.u32(kCentralSig);
    cd.u16((3 << 8) | 20);  // made by: Unix, APPNOTE 2.0
    cd.u16(extra ? 45 : 20);
    cd.u16(ascii(e.name) ? 0 : 0x0800);
    cd.u16(e.method);
    cd.u16(dtime);
    cd.u16(ddate);
    cd.u32(e.crc);
    cd.u32(zc ? static_cast<uint32_t>(kMax32) : static_cast<uint32_t>(e.csize));
    cd.u32(zu ? static_cast<uint32_t>(kMax32) : static_cast<uint32_t>(e.usize));
    cd.u16(static_cast<uint16_t>(e.name.size()));
    cd.u16(extra);
    cd.u16(0);  // comment
    cd.u16(0);  // disk
    cd.u16(0);  // internal attributes
    cd.u32((0100000u | (e.mode & 07777)) << 16);
    cd.u32(zo ? static_cast<uint32_t>(kMax32) : static_cast<uint32_t>(e.offset));
    cd.str(e.name);
    if (extra) {
      cd.u16(0x0001);
      cd.u16(static_cast<uint16_t>(extra - 4));
      if (zu) cd.u64(e.usize);
      if (zc) cd.u64(e.csize);
      if (zo) cd.u64(e.offset);
    }
  }
  const uint64_t cd_size = cd.b.size();
  Buf end;
  const uint64_t n = entries.size();
  const bool z64_end = o.force_zip64 || n >= 0xffff || cd_start >= kMax32 || cd_size >= kMax32;
  if (z64_end) {
    const uint64_t rec = cd_start + cd_size;
    end.u32(kZip64EocdSig);
    end.u64(44);
    end.u16((3 << 8) | 45);
    end.u16(45);
    end.u32(0);
    end.u32(0);
    end.u64(n);
    end.u64(n);
    end.u64(cd_size);
    end.u64(cd_start);
    end.u32(kZip64LocSig);
    end.u32(0);
    end.u64(rec);
    end.u32(1);
  }
  end.u32(kEocdSig);
  end.u16(0);
  end.u16(0);
  end.u16(static_cast<uint16_t>(std::min<uint64_t>(n, 0xffff)));
  end.u16(static_cast<uint16_t>(std::min<uint64_t>(n, 0xffff)));
  end.u32(static_cast<uint32_t>(std::min<uint64_t>(cd_size, kMax32)));
  end.u32(static_cast<uint32_t>(std::min<uint64_t>(cd_start, kMax32)));
  end.u16(0);
  cd.b.insert(cd.b.end(), end.b.begin(), end.b.end());
  if (auto s = pwrite_all(dst, pos, cd.b.data(), cd.b.size(), tmp); !s) return s.error();
  pos += cd.b.size();
  if (auto s = file->commit(); !s) return s.error();
  WheelWriteStats st;
  st.members = entries.size();
  for (const auto& m : members) st.copied += m.keep != nullptr;
  st.size = pos;
  return st;
}

}  // namespace cuwheel
