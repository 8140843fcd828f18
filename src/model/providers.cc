// Which distributions provide a library. See include/cuwheel/model/providers.h.
#include "cuwheel/model/providers.h"

#include <initializer_list>

#include "cuwheel/cuda/libclass.h"
#include "cuwheel/model/loading.h"
#include "cuwheel/wheel/pep508.h"

namespace cuwheel::model {

namespace {

// torch 2.15.0 (cp311, manylinux_2_28_x86_64, the CUDA 13 build PyPI
// serves): the shared libraries of torch/lib, and the CUDA libraries that
// `import torch` puts in the process (NEEDED by libtorch_cuda.so,
// libtorch_cpu.so, libc10_cuda.so, libtorch_python.so, libtorch_nvshmem.so,
// read from the wheel). The CUDA 12 names are those of torch 2.8.0, the
// last CUDA 12 build on PyPI (cu128), read the same way.
constexpr const char* kTorchOwn[] = {
    "libc10.so",          "libc10_cuda.so",         "libcaffe2_nvrtc.so",  "libshm.so",
    "libtorch.so",        "libtorch_cpu.so",        "libtorch_cuda.so",    "libtorch_cuda_linalg.so",
    "libtorch_global_deps.so", "libtorch_nvshmem.so", "libtorch_python.so", "libgomp.so.1"};
constexpr const char* kTorchLoads13[] = {
    "libcudart.so.13",  "libcublas.so.13",   "libcublasLt.so.13", "libcufft.so.12",
    "libcusparse.so.12", "libcufile.so.0",   "libcusparseLt.so.0", "libnccl.so.2",
    "libcudnn.so.9",    "libnvrtc.so.13",    "libcupti.so.13",    "libnvshmem_host.so.3"};
constexpr const char* kTorchLoads12[] = {
    "libcudart.so.12", "libcublas.so.12", "libcublasLt.so.12", "libcufft.so.11", "libcusparse.so.12",
    "libcufile.so.0",  "libcusparseLt.so.0", "libnccl.so.2",   "libcurand.so.10", "libcudnn.so.9",
    "libcupti.so.12"};

// RAPIDS C++ libraries: each wheel puts its library in <pkg>/lib64
// (librmm-cu12, libraft-cu12, libkvikio-cu12, libcudf-cu12 26.10 and
// rapids-logger 0.3.0 read from their wheels; libcuvs-cu12 assumed to
// follow the same layout), and
// the Python packages load it before importing their extensions
// (`librmm.load_library()`).
struct Rapids {
  const char* distribution;  // without the -cuNN suffix, or the full name
  const char* package;
  const char* soname;
  bool per_major;
};
constexpr Rapids kRapids[] = {
    {"librmm", "librmm", "librmm.so", true},       {"libraft", "libraft", "libraft.so", true},
    {"libcudf", "libcudf", "libcudf.so", true},    {"libcuvs", "libcuvs", "libcuvs.so", true},
    {"libkvikio", "libkvikio", "libkvikio.so", true}, {"rapids-logger", "rapids_logger", "librapids_logger.so", false},
};

// What each RAPIDS library NEEDs, read from the -cu12 26.10 wheels
// (librmm.so, libraft.so, libkvikio.so, libcudf.so, libcuvs.so): once its
// Python package has loaded it (with its own dependencies first), these
// names are in the process. The RAPIDS names hold for both majors; the
// CUDA names are the CUDA 12 ones, so they are listed for -cu12 only.
struct RapidsLoads {
  const char* distribution;
  std::initializer_list<const char*> rapids, cuda12;
};
const RapidsLoads kRapidsLoads[] = {
    {"librmm", {"librapids_logger.so"}, {}},
    {"libkvikio", {"librapids_logger.so"}, {}},
    {"libraft",
     {"librmm.so", "librapids_logger.so"},
     {"libcublas.so.12", "libcublasLt.so.12", "libcusolver.so.11", "libcusparse.so.12", "libcurand.so.10",
      "libnvJitLink.so.12"}},
    {"libcudf", {"librmm.so", "libkvikio.so", "librapids_logger.so"}, {"libnvcomp.so.5", "libnvrtc.so.12", "libnvJitLink.so.12"}},
    {"libcuvs",
     {"librmm.so", "libkvikio.so", "librapids_logger.so"},
     {"libcublas.so.12", "libcublasLt.so.12", "libcusolver.so.11", "libcusparse.so.12", "libcurand.so.10",
      "libnccl.so.2", "libnvJitLink.so.12", "libnvrtc.so.12"}},
};


}  // namespace

Providers Providers::builtin() {
  Providers p;
  const std::string torch_src = "torch 2.15.0 wheel (built-in table)";
  for (const char* n : kTorchOwn) p.add(n, Provider{"torch", "torch/lib", true, torch_src});
  for (const char* n : kTorchLoads13)
    p.add(n, Provider{"torch", "", false, "built-in table: torch's CUDA 13 builds, names read from torch 2.15.0"});
  for (const char* n : kTorchLoads12)
    p.add(n, Provider{"torch", "", false, "built-in table: torch's CUDA 12 builds, names read from torch 2.8.0"});
  for (const auto& r : kRapids) {
    const std::string folder = std::string(r.package) + "/lib64";
    const std::string src = std::string(r.distribution) + " wheels (built-in table)";
    if (r.per_major) {
      for (const char* suffix : {"-cu12", "-cu13"})
        p.add(r.soname, Provider{std::string(r.distribution) + suffix, folder, true, src});
    } else {
      p.add(r.soname, Provider{r.distribution, folder, true, src});
    }
  }
  for (const auto& r : kRapidsLoads) {
    const std::string src = std::string(r.distribution) + ".so's DT_NEEDED, read from the -cu12 26.10 wheel (built-in table)";
    for (const char* suffix : {"-cu12", "-cu13"}) {
      const std::string dist = std::string(r.distribution) + suffix;
      for (const char* n : r.rapids) p.add(n, Provider{dist, "", false, src});
      if (std::string(suffix) == "-cu12")
        for (const char* n : r.cuda12) p.add(n, Provider{dist, "", false, src});
    }
  }
  // Generic runtimes that torch happens to ship (torch/lib/libgomp.so.1):
  // a torch extension finds them once torch is loaded, but torch is no
  // answer for another package that needs them.
  for (auto& [name, list] : p.by_soname_)
    if (name == "libgomp.so.1")
      for (auto& prov : list) prov.generic = true;
  return p;
}

void Providers::add(const std::string& soname, Provider p) { by_soname_[soname].push_back(std::move(p)); }

void Providers::add_wheel(const CheckModel& m, const std::string& source, Provider::From from) {
  if (!m.is_distribution() || m.unreadable) return;
  std::string dist;
  if (m.metadata && !m.metadata->name.empty()) dist = normalize_name(m.metadata->name);
  else if (m.parsed_filename) dist = normalize_name(m.parsed_filename->distribution);
  if (dist.empty()) return;
  wheel_dists_[dist] = true;
  // A wheel's facts replace the built-in table's for its distribution.
  for (auto& [name, list] : by_soname_)
    std::erase_if(list, [&](const Provider& p) { return p.distribution == dist && p.from == Provider::From::builtin; });
  for (const auto& lib : m.libraries) {
    if (!loadable(lib) || lib.member.empty()) continue;
    auto where = install_path(lib.member);
    if (!where) continue;
    const std::string dir = dir_of(*where);
    add(file_name(*where), Provider{dist, dir, true, source, from});
    if (lib.load.soname && *lib.load.soname != file_name(*where))
      add(*lib.load.soname, Provider{dist, dir, true, source, from});
    // Once this library is loaded, everything it NEEDs is in the process
    // too (else it would not have loaded): the CUDA libraries it finds in
    // NVIDIA's folders, and the libraries of its own dependencies
    // (libraft.so NEEDs librmm.so and librapids_logger.so, which
    // librmm-cu12 and rapids-logger ship). The system's libraries and the
    // driver are found by every library alike, and name no provider.
    for (const auto& n : lib.load.needed) {
      const LibraryKind k = classify_soname(n).kind;
      if (k == LibraryKind::system || k == LibraryKind::nvidia_driver) continue;
      add(n, Provider{dist, "", false, source, from});
    }
  }
}

std::vector<const Provider*> Providers::find(const std::string& soname) const {
  std::vector<const Provider*> out;
  auto it = by_soname_.find(soname);
  if (it == by_soname_.end()) return out;
  for (const auto& p : it->second)
    if (p.from != Provider::From::builtin) out.push_back(&p);
  for (const auto& p : it->second)
    if (p.from == Provider::From::builtin) out.push_back(&p);
  return out;
}

bool Providers::has_wheel_of(const std::string& distribution) const { return wheel_dists_.count(distribution) > 0; }

}  // namespace cuwheel::model
