// size-budget: the wheel's compressed size (what is uploaded and
// downloaded) and its installed size (the sum of the members' uncompressed
// sizes, what lands in site-packages) against the policy's budgets. Both
// checks are off unless the policy sets max-size / max-installed-size.
// Field report 3 (a GPU wheel growing from 220 MB to over 800 MB between
// nightlies) is what this catches.
#include <algorithm>

#include "rules.h"
#include "wheel_util.h"

namespace cuwheel::check::rule_impl {

namespace {

// "a (12 MB), b (3.1 MB), c (0.500 MB)": the `n` largest members by `size`.
std::string largest(const std::vector<MemberModel>& members, uint64_t MemberModel::*size, size_t n = 3) {
  std::vector<const MemberModel*> v;
  for (const auto& m : members)
    if (!m.name.empty() && m.name.back() != '/') v.push_back(&m);
  std::sort(v.begin(), v.end(), [size](const MemberModel* a, const MemberModel* b) {
    return a->*size != b->*size ? a->*size > b->*size : a->name < b->name;
  });
  std::string s;
  for (size_t i = 0; i < v.size() && i < n; ++i)
    s += (s.empty() ? "" : ", ") + printable(v[i]->name) + " (" + megabytes(v[i]->*size) + ")";
  return s.empty() ? std::string("none") : s;
}

}  // namespace

void size_budget(const Context& ctx, Emitter& out) {
  const CheckModel& m = ctx.model;
  const Policy& p = ctx.policy;
  if (m.kind != CheckModel::Kind::wheel) return;
  if (p.max_size && m.archive_size > *p.max_size) {
    out.emit("", "wheel file",
             "wheel is " + megabytes(m.archive_size) + " compressed, above the budget of " + megabytes(*p.max_size) +
                 "; largest members compressed: " + largest(m.members, &MemberModel::compressed_size),
             "drop what the wheel need not ship (debug info, unused architectures, bundled CUDA libraries that an "
             "NVIDIA package provides), or raise max-size deliberately");
  }
  if (p.max_installed_size) {
    uint64_t installed = 0;
    for (const auto& mm : m.members) installed += mm.size;
    if (installed > *p.max_installed_size)
      out.emit("", "installed size",
               "wheel installs " + megabytes(installed) + ", above the budget of " + megabytes(*p.max_installed_size) +
                   "; largest members: " + largest(m.members, &MemberModel::size),
               "strip the libraries (`strip --strip-debug`), compress device code (nvcc -Xfatbin=-compress-all), "
               "or raise max-installed-size deliberately");
  }
}

}  // namespace cuwheel::check::rule_impl
