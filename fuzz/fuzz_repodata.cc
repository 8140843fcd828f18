// libFuzzer target: RPM repository metadata and the toolkit lock. The first
// byte picks the reader; the rest is its input:
//   0  repomd.xml (parse_repomd)
//   1  primary.xml (parse_primary), then resolve the first packages' names
//      in it: resolution must terminate on any dependency graph
//   2  compressed metadata (decompress_metadata, 1 MiB cap), then primary
//   3  two versions separated by NUL: rpmvercmp must be antisymmetric and
//      reflexive, and compare_evr consistent with it
//   4  a lock file (read_lock through a temporary file): what it accepts
//      must survive format_lock -> read_lock -> format_lock unchanged
//   5  filelists.xml, plain or compressed (parse_filelists, 1 MiB cap):
//      only wanted paths may come back, each package with a pkgid, name,
//      arch and version
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "cuwheel/base/fileio.h"
#include "cuwheel/toolkit/lock.h"
#include "cuwheel/toolkit/repo.h"

using namespace cuwheel;
using namespace cuwheel::toolkit;

namespace {

void fuzz_primary(std::string_view xml) {
  auto pk = parse_primary(xml, "primary.xml");
  if (!pk) return;
  Repository repo;
  repo.packages = std::move(*pk);
  ResolveRequest req;
  req.release = "12.9";
  for (size_t i = 0; i < repo.packages.size() && i < 3; ++i) req.packages.push_back(repo.packages[i].name);
  if (req.packages.empty()) req.packages.push_back("cuda-nvcc");
  (void)resolve(repo, req);
  (void)releases_with(repo, "cuda-nvcc");
}

const std::string& temp_lock_path() {
  static const std::string path = [] {
    std::string tmpl = (std::filesystem::temp_directory_path() / "fuzz_lock_XXXXXX").string();
    int fd = mkstemp(tmpl.data());
    if (fd >= 0) close(fd);
    return tmpl;
  }();
  static const bool cleanup_registered = [] {
    std::atexit([] { std::remove(temp_lock_path().c_str()); });
    return true;
  }();
  (void)cleanup_registered;
  return path;
}

void fuzz_lock(std::string_view text) {
  const std::string& path = temp_lock_path();
  if (!write_file_atomic(path, text)) return;
  auto lock = read_lock(path);
  if (!lock) return;
  std::string once = format_lock(*lock);
  if (!write_file_atomic(path, once)) return;
  auto again = read_lock(path);
  if (!again) {
    std::fprintf(stderr, "format_lock output not readable: %s\n", again.error().message().c_str());
    std::abort();
  }
  if (format_lock(*again) != once) {
    std::fprintf(stderr, "format_lock is not a fixed point\n");
    std::abort();
  }
}

void fuzz_filelists(std::string_view stored) {
  static const std::vector<std::string> wanted = {"/usr/share/cuda-fx/data.txt", "/usr/lib64/libfx.so.1",
                                                  "/usr/share/cuda-fx", "/bin/sh"};
  auto pk = parse_filelists(stored, "filelists.xml", wanted, 1 << 20);
  if (!pk) return;
  for (const FilelistsPackage& p : *pk) {
    if (p.pkgid.empty() || p.name.empty() || p.arch.empty() || p.evr.version.empty() || p.files.empty()) {
      std::fprintf(stderr, "parse_filelists kept an incomplete package\n");
      std::abort();
    }
    for (const std::string& f : p.files)
      if (std::find(wanted.begin(), wanted.end(), f) == wanted.end()) {
        std::fprintf(stderr, "parse_filelists kept an unwanted path\n");
        std::abort();
      }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view body(reinterpret_cast<const char*>(data + 1), size - 1);
  switch (data[0] % 6) {
    case 0: (void)parse_repomd(body, "repomd.xml"); break;
    case 1: fuzz_primary(body); break;
    case 2: {
      auto xml = decompress_metadata(body, "primary.xml.gz", 1 << 20);
      if (xml) fuzz_primary(*xml);
      break;
    }
    case 3: {
      size_t nul = body.find('\0');
      std::string_view a = body.substr(0, nul);
      std::string_view b = nul == std::string_view::npos ? std::string_view() : body.substr(nul + 1);
      int ab = rpmvercmp(a, b), ba = rpmvercmp(b, a);
      if (ab != -ba || rpmvercmp(a, a) != 0 || ab < -1 || ab > 1) {
        std::fprintf(stderr, "rpmvercmp inconsistent: %d %d\n", ab, ba);
        std::abort();
      }
      Evr ea = parse_evr(a), eb = parse_evr(b);
      if (compare_evr(ea, eb) != -compare_evr(eb, ea)) std::abort();
      (void)format_evr(ea);
      break;
    }
    case 4: fuzz_lock(body); break;
    case 5: fuzz_filelists(body); break;
  }
  return 0;
}
