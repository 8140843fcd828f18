// Shared by undeclared-dependency and unused-dependency: the CUDA major a
// wheel claims, for names that fit several majors.
#pragma once
#include "loading_util.h"

namespace cuwheel::check::rule_impl::loading {

/// model/requirements.h: the major the wheel claims (the policy's first).
inline std::optional<int> claimed_major(const CheckModel& m, const Policy& policy, const Requirements& reqs) {
  return model::claimed_major(m, policy.cuda_major, reqs);
}
using model::candidate_majors;

}  // namespace cuwheel::check::rule_impl::loading
