#include "cuwheel/base/source.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace cuwheel {

Blob::Impl::~Impl() {
  if (map) munmap(map, map_len);
  if (fd >= 0) close(fd);
}

Expected<Blob> Blob::map_file(const std::string& path) {
  // O_NONBLOCK: a FIFO must not block the open; it is refused below.
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return Error(path + ": cannot open: " + std::strerror(errno));
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int e = errno;
    close(fd);
    return Error(path + ": cannot stat: " + std::strerror(e));
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return Error(path + ": not a regular file");
  }
  return map_fd(fd, static_cast<uint64_t>(st.st_size), path);
}

Expected<Blob> Blob::map_fd(int fd, uint64_t size, const std::string& what) {
  Blob b;
  b.impl_ = std::make_shared<Impl>();
  b.impl_->fd = fd;
  if (size == 0) return b;
  if (size > SIZE_MAX) return Error(what + ": too large to map");
  void* p = mmap(nullptr, static_cast<size_t>(size), PROT_READ, MAP_PRIVATE, fd, 0);
  if (p == MAP_FAILED) return Error(what + ": cannot map: " + std::strerror(errno));
  b.impl_->map = p;
  b.impl_->map_len = static_cast<size_t>(size);
  b.impl_->view = ByteView(static_cast<const uint8_t*>(p), static_cast<size_t>(size));
  return b;
}

Blob Blob::from_vector(std::vector<uint8_t> bytes) {
  Blob b;
  b.impl_ = std::make_shared<Impl>();
  b.impl_->heap = std::move(bytes);
  b.impl_->view = ByteView(b.impl_->heap.data(), b.impl_->heap.size());
  return b;
}

void Blob::release(uint64_t offset, uint64_t length) const {
  if (!impl_ || !impl_->map || length == 0) return;
  // Round to 2 MiB, not just to pages: a page fault maps the whole page-cache
  // folio around it (up to 2 MiB for freshly written files such as spilled
  // wheel members; the 64 KiB fault-around window otherwise), so pages next
  // to the range would otherwise stay resident. Measured on a 520 MB member:
  // 4 KiB rounding left 287 MB resident, 64 KiB the same, 2 MiB 130 MB.
  const uint64_t page = std::max<uint64_t>(static_cast<uint64_t>(sysconf(_SC_PAGESIZE)), 2 * 1024 * 1024);
  if (!in_bounds(impl_->map_len, offset, length)) return;
  // Round outwards: the mapping is read-only and private, so dropping a
  // page that is still in use only means it is read again from the file on
  // the next access (madvise(2), MADV_DONTNEED).
  uint64_t begin = offset / page * page;
  uint64_t end = std::min<uint64_t>((offset + length + page - 1) / page * page, impl_->map_len);
  if (end <= begin) return;
  // Gather neighbouring ranges (entries are read in file order, by a few
  // threads at most) and drop them 16 MiB at a time.
  constexpr uint64_t kGather = 16ull << 20;
  std::lock_guard<std::mutex> lock(impl_->release_mu);
  uint64_t& pb = impl_->pending_begin;
  uint64_t& pe = impl_->pending_end;
  if (pb == pe) {
    pb = begin;
    pe = end;
    return;
  }
  const uint64_t ub = std::min(pb, begin), ue = std::max(pe, end);
  if (ue - ub <= kGather) {
    pb = ub;
    pe = ue;
    return;
  }
  madvise(static_cast<uint8_t*>(impl_->map) + pb, static_cast<size_t>(pe - pb), MADV_DONTNEED);
  pb = begin;
  pe = end;
}

Expected<int> make_temp_file() {
  const char* dir = std::getenv("TMPDIR");
  if (!dir || !*dir) dir = "/tmp";
  int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0) return fd;
  // Filesystems without O_TMPFILE: create, then unlink at once.
  std::string tmpl = std::string(dir) + "/cuwheel-XXXXXX";
  fd = mkostemp(tmpl.data(), O_CLOEXEC);
  if (fd < 0) return Error(std::string(dir) + ": cannot create a temporary file: " + std::strerror(errno));
  unlink(tmpl.c_str());
  return fd;
}

}  // namespace cuwheel
