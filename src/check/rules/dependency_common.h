// Shared by undeclared-dependency and unused-dependency: the CUDA major a
// wheel claims, for names that fit several majors.
#pragma once
#include "loading_util.h"

namespace cuwheel::check::rule_impl::loading {

/// policy, then name, then version label, then a Requires-Dist of one major.
inline std::optional<int> claimed_major(const CheckModel& m, const Policy& policy, const Requirements& reqs) {
  if (policy.cuda_major) return policy.cuda_major;
  if (auto v = name_major(m)) return v;
  if (auto v = version_major(m)) return v;
  std::set<int> any;
  for (const auto& d : reqs.declared)
    if (d.major_certain) any.insert(d.cuda_major);
  if (any.size() == 1) return *any.begin();
  return std::nullopt;
}

/// The majors a NEEDED name can come from, narrowed by the claim.
inline std::vector<int> candidate_majors(const LibraryClass& c, std::optional<int> claim) {
  std::vector<int> out;
  for (int major : {12, 13}) {
    if (!c.provision(major)) continue;
    if (!c.majors.empty() && !c.majors.contains(major)) continue;
    out.push_back(major);
  }
  if (claim && out.size() > 1)
    for (int major : out)
      if (major == *claim) return {major};
  return out;
}

}  // namespace cuwheel::check::rule_impl::loading
