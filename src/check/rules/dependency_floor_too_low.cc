// dependency-floor-too-low: a library of the wheel needs a symbol that a
// CUDA library exports only from some release on (the release is encoded in
// the symbol's name; facts.h symbol_release()), and the wheel's Requires-Dist
// on the NVIDIA distribution that provides that library admits an older
// release. pip then may keep or install the older library, and ld.so stops
// at import with "undefined symbol: __nvJitLinkComplete_12_4, version
// libnvJitLink.so.12". Field reports 10 (pytorch/pytorch#134929) and 11
// (NVIDIA/cuvs#1794). A declaration through cuda-toolkit[extra] is checked
// the same way: cuda-toolkit's version is the CUDA release. A distribution
// that is not declared at all is undeclared-dependency's finding.
// One finding per declared requirement that is too low, naming the library
// and symbol that need the newest release.
#include <map>

#include "cuwheel/wheel/pep508.h"
#include "dependency_common.h"
#include "rules.h"

namespace cuwheel::check::rule_impl {

namespace {

// The oldest CUDA release (major.minor) a specifier set admits, from its
// lower-bounding clauses (>=, >, ==, ~=, ===); nullopt when no clause bounds
// it from below. Clauses are a conjunction, so the highest bound wins.
std::optional<CudaRelease> floor_release(const SpecifierSet& set) {
  std::optional<CudaRelease> floor;
  for (const auto& s : set.specifiers) {
    using Op = Specifier::Op;
    std::optional<Version> v;
    switch (s.op) {
      case Op::kGreaterEqual:
      case Op::kGreater:
      case Op::kEqual:
      case Op::kCompatible:
        v = s.version;
        break;
      case Op::kArbitrary:
        if (auto p = Version::parse(s.text)) v = *p;
        break;
      default:
        break;
    }
    if (!v || v->release.empty()) continue;
    auto clamp = [](uint64_t x) { return x > 100000 ? 100000 : static_cast<int>(x); };
    CudaRelease r{clamp(v->release[0]), v->release.size() > 1 ? clamp(v->release[1]) : 0};
    if (!floor || *floor < r) floor = r;
  }
  return floor;
}

struct Need {
  CudaRelease release;
  std::string member, symbol, file;
  size_t libraries = 0;
};

}  // namespace

void dependency_floor_too_low(const Context& ctx, Emitter& out) {
  const auto& m = ctx.model;
  if (!m.is_distribution()) return;
  auto reqs = loading::read_requirements(m);
  std::string self = loading::wheel_name(m);
  std::map<std::string, Need> needs;  // distribution -> newest release needed
  for (const auto& lib : m.libraries) {
    if (!loading::loadable(lib)) continue;
    std::map<std::string, bool> counted;
    for (const auto& n : lib.cuda_symbol_needs) {
      if (!n.first_release) continue;
      const LibraryClass c = classify_soname(n.file);  // provision() points into it
      const Provision* p = c.provision(n.first_release->major);
      if (!p || p->distribution.empty() || std::string(p->distribution) == self) continue;
      auto& need = needs[std::string(p->distribution)];
      if (!counted[std::string(p->distribution)]) {
        counted[std::string(p->distribution)] = true;
        ++need.libraries;
      }
      if (need.member.empty() || need.release < *n.first_release) {
        need.release = *n.first_release;
        need.member = lib.member;
        need.symbol = n.symbol;
        need.file = n.file;
      }
    }
  }
  for (const auto& [dist, need] : needs) {
    for (const auto& d : reqs.declared) {
      if (d.distribution != dist || d.cuda_major != need.release.major) continue;
      auto r = Requirement::parse(d.requirement);
      if (!r) continue;
      auto floor = floor_release(r->specifier);
      if (floor && !(*floor < need.release)) continue;
      std::string spec = r->specifier.to_string();
      std::string shown = r->normalized_name();
      if (!r->extras.empty()) {
        shown += "[";
        for (size_t i = 0; i < r->extras.size(); ++i) shown += (i ? "," : "") + r->extras[i];
        shown += "]";
      }
      std::string others = need.libraries > 1 ? " (and " + std::to_string(need.libraries - 1) + " more librar" +
                                                    (need.libraries == 2 ? "y" : "ies") + ")"
                                              : "";
      out.emit(need.member, ".gnu.version_r " + need.file,
               "Requires-Dist " + shown + (spec.empty() ? " (no lower bound)" : spec) + " admits " +
                   (floor ? "CUDA " + floor->str() : "any release") + ", but " + base_name(need.member) + others +
                   " needs " + need.symbol + " from " + need.file + " (first in CUDA " + need.release.str() +
                   "): an older install fails at import with an undefined symbol",
               "raise the floor to " + shown + ">=" + need.release.str() + " (Requires-Dist: " +
                   d.requirement + ")");
      out.attach_fix({"raise-floor", m.dist_info + "/METADATA", need.release.str(), d.requirement});
    }
  }
}

}  // namespace cuwheel::check::rule_impl
