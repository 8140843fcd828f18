// ptx-needs-newer-driver: the driver JIT-compiles PTX only when it knows the
// PTX ISA version; PTX from a newer toolkit fails with "unsupported PTX
// version" (222), and minor-version compatibility does not cover PTX
// (cuda-facts.md 1.2, 2.1, 2.2; field report 13: CUDA 11.7 PTX on 11.4
// drivers). With a policy `min-driver`, each PTX ISA version of a library
// whose first CUDA release needs a newer driver is flagged, once per
// library and ISA version (all the entries and architectures it covers).
// A PTX ISA newer than the table (cuda-facts.md 2.1), or one of a release
// whose minimum driver the table lacks (13.4 on, 2.2), is flagged whatever
// the min-driver: the driver it needs is unknown, and saying so beats
// inventing a threshold. The table is cuwheel/cuda/releases.h.
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <map>

#include "cuwheel/cuda/releases.h"
#include "cuwheel/object/fatbin.h"
#include "device_arch.h"
#include "rules.h"

namespace cuwheel::check::rule_impl {

namespace {

struct IsaGroup {
  std::vector<std::string> archs;
  size_t entries = 0;
  uint64_t first_offset = 0;
  std::string section;
};

// The newest published CUDA release whose PTX a driver of version `driver`
// JITs (the release table, cuwheel/cuda/releases.h), or "".
std::string newest_release_for(const std::string& driver) {
  std::string best;
  for (const cuda::ReleaseInfo& r : cuda::release_table()) {
    if (!r.published || r.min_driver.empty()) continue;
    auto cmp = cuda::compare_driver_versions(r.min_driver, driver);
    if (cmp && *cmp <= 0) best = r.release.to_string();
  }
  return best;
}

}  // namespace

void ptx_needs_newer_driver(const Context& ctx, Emitter& out) {
  if (!ctx.policy.min_driver) return;
  const std::string& have = *ctx.policy.min_driver;
  if (!cuda::compare_driver_versions(have, "0")) {
    out.emit("", "policy min-driver", "the policy's min-driver \"" + have + "\" is not a driver version",
             "write it as the driver's dotted version, e.g. \"580.65.06\"");
    return;
  }
  const std::string newest = newest_release_for(have);
  for (const auto& lib : ctx.model.libraries) {
    std::map<std::pair<int, int>, IsaGroup> groups;
    for (const auto& e : lib.device.entries) {
      if (e.kind != fatbin::kPtx) continue;
      std::string isa = e.ptx_isa();
      size_t dot = isa.find('.');
      if (dot == std::string::npos) continue;  // ISA not recorded: nothing to compare
      int maj = 0, min = 0;
      std::from_chars(isa.data(), isa.data() + dot, maj);
      std::from_chars(isa.data() + dot + 1, isa.data() + isa.size(), min);
      auto& g = groups[{maj, min}];
      std::string va = e.virtual_arch();
      if (std::find(g.archs.begin(), g.archs.end(), va) == g.archs.end()) g.archs.push_back(va);
      if (g.entries++ == 0) {
        g.first_offset = e.offset;
        g.section = e.section;
      }
    }
    for (auto& [isa, g] : groups) {
      auto [maj, min] = isa;
      const cuda::PtxIsa ptx_isa{maj, min};
      const auto rel = cuda::release_for_ptx(ptx_isa);
      const std::string release = rel ? rel->to_string() : "";
      const std::string need(cuda::min_driver_for_ptx(ptx_isa));
      const bool known = !need.empty();
      // Newer than the table (cuda-facts.md 2.1-2.2): no release this
      // cuwheel knows emits it, so the driver it needs is unknown: no
      // min-driver passes it and no threshold is invented.
      const bool newer = !known && ptx_isa > cuda::newest_ptx_isa();
      // A current release of the table without a known driver (13.4 and
      // later: their release notes bundle none) is flagged the same way.
      const cuda::ReleaseInfo* row = rel ? cuda::find_release(*rel) : nullptr;
      const bool no_driver = !known && row && row->current;
      // Older than the driver table (CUDA 10 and before), or an ISA no
      // release emits: any supported driver JITs it.
      if (!known && !newer && !no_driver) continue;
      if (known) {
        auto cmp = cuda::compare_driver_versions(have, need);
        if (!cmp || *cmp >= 0) continue;
      }
      std::sort(g.archs.begin(), g.archs.end(), arch_less);
      char where[64];
      std::snprintf(where, sizeof where, "%s entry at 0x%llx", g.section.empty() ? "PTX" : g.section.c_str(),
                    static_cast<unsigned long long>(g.first_offset));
      std::string isa_s = std::to_string(maj) + "." + std::to_string(min);
      const std::string at = std::string(where) + (lib.archive_member.empty() ? "" : " of " + lib.archive_member);
      if (!known) {
        std::string msg = device::label(ctx, lib) + ": PTX " + device::join(g.archs) + ": PTX ISA " + isa_s +
                          (newer ? " is newer than any CUDA release this cuwheel knows; the driver it needs is unknown"
                                 : " (CUDA " + release + "): the minimum driver of CUDA " + release +
                                       " is unknown to this cuwheel") +
                          " (the policy's minimum driver is " + have + ")";
        if (g.entries > 1) msg += " (" + std::to_string(g.entries) + " entries)";
        out.emit(lib.member, at, msg,
                 (newer ? "update cuwheel to a release that knows PTX ISA " + isa_s
                        : "look up the minimum driver of CUDA " + release + " in its release notes") +
                     ", or, once the CUDA release notes confirm driver " + have +
                     " JIT-compiles it, ignore ptx-needs-newer-driver for this wheel "
                     "(--ignore ptx-needs-newer-driver, or ignore = [\"ptx-needs-newer-driver\"] in its policy)");
        continue;
      }
      std::string msg = device::label(ctx, lib) + ": PTX " + device::join(g.archs) + " is ISA " + isa_s + " (CUDA " +
                        (release.empty() ? "?" : release) + "), which needs driver >= " + need +
                        "; the policy's minimum driver is " + have;
      if (g.entries > 1) msg += " (" + std::to_string(g.entries) + " entries)";
      out.emit(lib.member, at, msg,
               (newest.empty() ? std::string("build the PTX with an older toolkit")
                               : "build the PTX with CUDA " + newest + " or older (the newest whose PTX driver " + have + " can JIT)") +
                   ", raise `min-driver` to " + need + ", or ship SASS for every target GPU so that no JIT is needed");
    }
  }
}

}  // namespace cuwheel::check::rule_impl
