// unused-dependency: Requires-Dist declares an NVIDIA CUDA package whose
// libraries no library of the wheel NEEDs (directly, or through the NVIDIA
// libraries it does need, per cuda-pathfinder's dependency table in
// cuda-facts.md 4.2) and whose folder no RPATH/RUNPATH names (a folder on the
// search path may serve dlopen; a folder several packages share, CUDA 13's
// nvidia/cu13/lib, is no evidence for any one of them). A warning by default: Python code may load
// libraries through ctypes or cuda-pathfinder (cupy, jax). Requirements
// behind an extra and those from cuda-toolkit[all] are opt-in and not judged;
// nor are wheels without NEEDED entries at all. A library the wheel loads by
// name counts as used: a CUDA soname held as a string in a library's
// read-only data (LibraryModel::dlopen_names: xgboost's libnccl.so.2,
// libkvikio's libcufile.so.0) or loaded by its Python files
// (CheckModel::python_loads).
#include <map>
#include <set>

#include "dependency_common.h"
#include "rules.h"

namespace cuwheel::check::rule_impl {

namespace {
// cuda-facts.md 4.2, "Inter-library dependencies encoded by pathfinder".
const std::map<std::string, std::vector<std::string>>& pulls() {
  static const std::map<std::string, std::vector<std::string>> t = {
      {"cublas", {"cublasLt"}},
      {"cusolver", {"nvJitLink", "cusparse", "cublasLt", "cublas"}},
      {"cusolverMg", {"nvJitLink", "cublasLt", "cublas"}},
      {"cusparse", {"nvJitLink"}},
      {"cufftw", {"cufft"}},
      {"nvblas", {"cublas", "cublasLt"}},
      {"cudnn", {"cublas", "cublasLt", "nvrtc"}},  // cuDNN 9 loads cuBLAS and NVRTC at run time
  };
  return t;
}
}  // namespace

void unused_dependency(const Context& ctx, Emitter& out) {
  const auto& m = ctx.model;
  if (!m.is_distribution()) return;
  auto reqs = loading::read_requirements(m);
  std::set<std::string> used_components, folders;
  bool any_needed = false;
  for (const auto& lib : m.libraries) {
    if (!loading::loadable(lib)) continue;
    any_needed |= !lib.load.needed.empty();
    for (const auto& n : lib.load.needed) {
      auto c = classify_soname(n);
      if (c.kind == LibraryKind::cuda_toolkit) used_components.insert(std::string(c.component));
    }
    for (const auto& n : lib.dlopen_names) {
      auto c = classify_soname(n);
      if (c.kind == LibraryKind::cuda_toolkit) used_components.insert(std::string(c.component));
    }
    std::optional<std::string> where;
    if (!lib.member.empty()) where = loading::install_path(lib.member);
    if (where)
      for (const auto& e : loading::all_entries(lib, loading::dir_of(*where)))
        if (e.kind == loading::SearchEntry::Kind::origin && !e.escapes) folders.insert(e.dir);
  }
  if (!any_needed) return;
  std::vector<std::string> stack(used_components.begin(), used_components.end());
  while (!stack.empty()) {
    std::string c = stack.back();
    stack.pop_back();
    std::string key = c.rfind("cudnn", 0) == 0 ? "cudnn" : c;
    auto it = pulls().find(key);
    if (it == pulls().end()) continue;
    for (const auto& d : it->second)
      if (used_components.insert(d).second) stack.push_back(d);
  }
  std::vector<std::string> unused;
  std::set<std::string> seen;
  for (const auto& d : reqs.declared) {
    if (!d.behind_extras.empty() || d.via_all || !seen.insert(d.distribution).second) continue;
    auto dist = lookup_distribution(d.distribution);
    if (!dist || dist->sonames.empty()) continue;
    // A folder on the search path is evidence for the package only when it
    // is that package's own: nvidia/cu13/lib, which every CUDA 13 package
    // shares, says nothing about nvidia-cublas in particular.
    const std::string dir(dist->directory);
    size_t sharing = 0;  // packages of the same major that install into dir
    for (const auto& o : loading::distributions_in(dir)) sharing += o.cuda_major == dist->cuda_major;
    bool used = !dir.empty() && folders.count(dir) && sharing == 1;
    for (auto s : dist->sonames) {
      auto c = classify_soname(s);
      if (c.kind == LibraryKind::cuda_toolkit && used_components.count(std::string(c.component))) used = true;
      for (const auto& l : m.python_loads)
        if (l.loads(std::string(s))) used = true;
    }
    if (!used) unused.push_back(d.requirement);
  }
  if (unused.empty()) return;
  out.emit(m.dist_info.empty() ? "" : m.dist_info + "/METADATA", "Requires-Dist",
           "no library of the " + std::string(loading::package_noun(m)) + " needs " + loading::join_some(unused, 4) +
               " (no DT_NEEDED on its libraries, no RPATH/RUNPATH entry for its folder)",
           "drop the requirement, move it behind an extra, or ignore this rule if Python code loads the library at "
           "run time");
}

}  // namespace cuwheel::check::rule_impl
