// cuda-major-mismatch: what the wheel says about its CUDA major (policy
// cuda-major, a name suffix such as -cu12 / cuda12x / cuda13, a local
// version label such as +cu130, Requires-Dist packages of one major) and
// what its libraries need (sonames that pin a major, libcudart.so.12 vs
// .13; NVIDIA folders on RPATH/RUNPATH that belong to one major,
// nvidia/cu13/lib vs nvidia/cuda_runtime/lib) disagree; or Requires-Dist
// asks for packages of both majors at once (unconditionally, or within
// one extra). Folder evidence counts only when a library's folders point at
// one major (NVIDIA's cuDNN lists both majors' folders as fallbacks).
#include <map>
#include <set>

#include "loading_util.h"
#include "rules.h"

namespace cuwheel::check::rule_impl {

void cuda_major_mismatch(const Context& ctx, Emitter& out) {
  const auto& m = ctx.model;
  auto reqs = loading::read_requirements(m);

  // Requires-Dist: majors per group (unconditional, and each extra).
  std::set<int> uncond;
  std::map<std::string, std::set<int>> by_extra;
  std::map<int, std::string> example;  // major -> a requirement naming it
  for (const auto& d : reqs.declared) {
    if (!d.major_certain) continue;
    example.emplace(d.cuda_major, d.requirement);
    if (d.behind_extras.empty()) uncond.insert(d.cuda_major);
    else
      for (const auto& e : d.behind_extras) by_extra[e].insert(d.cuda_major);
  }
  bool both_reported = false;
  auto report_both = [&](const std::string& where) {
    if (both_reported) return;
    both_reported = true;
    out.emit(m.dist_info.empty() ? "" : m.dist_info + "/METADATA", "Requires-Dist",
             "Requires-Dist asks for CUDA 12 and CUDA 13 packages together" + where + ": " + example[12] + " and " +
                 example[13],
             "depend on the packages of one CUDA major (put the other behind its own extra, or build one wheel per "
             "major)");
  };
  if (uncond.size() > 1) report_both("");
  for (const auto& [extra, majors] : by_extra) {
    std::set<int> all = majors;
    all.insert(uncond.begin(), uncond.end());
    if (all.size() > 1) report_both(" (extra '" + extra + "')");
  }
  std::optional<int> req_major;
  {
    std::set<int> any;
    for (const auto& d : reqs.declared)
      if (d.major_certain) any.insert(d.cuda_major);
    if (any.size() == 1) req_major = *any.begin();
  }

  // What the wheel claims.
  std::vector<std::pair<int, std::string>> claims;
  if (ctx.policy.cuda_major) claims.emplace_back(*ctx.policy.cuda_major, "the policy's cuda-major");
  if (auto v = loading::name_major(m)) claims.emplace_back(*v, "the name " + loading::wheel_name(m));
  if (auto v = loading::version_major(m)) claims.emplace_back(*v, "the version label of " + m.metadata->version);
  if (req_major) claims.emplace_back(*req_major, "Requires-Dist (" + example[*req_major] + ")");
  for (size_t i = 1; i < claims.size(); ++i)
    if (claims[i].first != claims[0].first) {
      out.emit(m.dist_info.empty() ? "" : m.dist_info + "/METADATA", "",
               claims[0].second + " says CUDA " + std::to_string(claims[0].first) + " but " + claims[i].second +
                   " says CUDA " + std::to_string(claims[i].first),
               "make the name, version label, Requires-Dist and policy name the same CUDA major");
      break;
    }
  // Assigned, not built with ?:, which gcc's -Wmaybe-uninitialized misreads.
  std::optional<int> claim;
  if (!claims.empty()) claim = claims[0].first;

  // What each library needs.
  for (const auto& lib : m.libraries) {
    if (!loading::loadable(lib)) continue;
    std::map<int, std::vector<std::string>> need, folders;  // major -> evidence
    for (const auto& n : lib.load.needed) {
      auto c = classify_soname(n);
      if (c.kind != LibraryKind::cuda_toolkit) continue;
      if (auto v = c.major()) need[*v].push_back(n);
    }
    std::optional<std::string> where;
    if (!lib.member.empty()) where = loading::install_path(lib.member);
    if (where) {
      for (const auto& e : loading::all_entries(lib, loading::dir_of(*where))) {
        if (e.kind != loading::SearchEntry::Kind::origin || e.escapes) continue;
        if (auto v = loading::folder_major(e.dir)) folders[*v].push_back(e.tag + " " + e.raw);
      }
    }
    if (need.size() > 1) {
      out.emit(lib.member, "DT_NEEDED",
               "the library needs CUDA 12 (" + loading::join_some(need[12], 3) + ") and CUDA 13 (" +
                   loading::join_some(need[13], 3) + ") at once",
               "link it against one toolkit and point its RUNPATH at that major's folders");
      continue;
    }
    // Folders count only when they point at one major: entries for both
    // (nvidia-cudnn-cu13 lists CUDA 12 and 13 folders) are layout fallbacks.
    if (need.empty() && folders.size() == 1) need = folders;
    else if (!need.empty() && folders.count(need.begin()->first))
      for (const auto& f : folders[need.begin()->first]) need.begin()->second.push_back(f);
    if (need.empty()) continue;
    int major = need.begin()->first;
    if (claim && major != *claim) {
      out.emit(lib.member, "DT_NEEDED",
               "the library needs CUDA " + std::to_string(major) + " (" + loading::join_some(need.begin()->second, 3) +
                   ") but " + claims[0].second + " says CUDA " + std::to_string(*claim),
               "build it with the CUDA " + std::to_string(*claim) + " toolkit, or name and declare the wheel for CUDA " +
                   std::to_string(major));
    }
  }
}

}  // namespace cuwheel::check::rule_impl
