// ptx-needs-newer-driver: the driver JIT-compiles PTX only when it knows the
// PTX ISA version; PTX from a newer toolkit fails with "unsupported PTX
// version" (222), and minor-version compatibility does not cover PTX
// (cuda-facts.md 1.2, 2.1, 2.2; field report 13: CUDA 11.7 PTX on 11.4
// drivers). With a policy `min-driver`, each PTX ISA version of a library
// whose first CUDA release needs a newer driver is flagged, once per
// library and ISA version (all the entries and architectures it covers).
// A PTX ISA newer than the table (cuda-facts.md 2.1) is flagged whatever the
// min-driver: the driver it needs is unknown, and saying so beats inventing
// a threshold.
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <map>

#include "cuwheel/object/cubin.h"
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

// The newest CUDA release whose PTX a driver of version `driver` JITs, or "".
std::string newest_release_for(const std::string& driver) {
  std::string best;
  for (int maj = 7; maj <= 9; ++maj)
    for (int min = 0; min <= 9; ++min) {
      std::string d = cubin::min_driver_for_ptx(maj, min);
      if (d.empty()) continue;
      auto cmp = device::compare_versions(d, driver);
      if (cmp && *cmp <= 0) {
        best = cubin::cuda_release_for_ptx(maj, min);
        if (best == "12.7") best = "12.8";
      }
    }
  return best;
}

}  // namespace

void ptx_needs_newer_driver(const Context& ctx, Emitter& out) {
  if (!ctx.policy.min_driver) return;
  const std::string& have = *ctx.policy.min_driver;
  if (!device::compare_versions(have, "0")) {
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
      std::string release = cubin::cuda_release_for_ptx(maj, min);
      if (release == "12.7") release = "12.8";  // 12.7 was never released (cuda-facts.md 2.1)
      std::string need = cubin::min_driver_for_ptx(maj, min);
      bool known = !need.empty();
      // Older than the table (CUDA 10 and before): any supported driver JITs it.
      if (!known && maj < 9) continue;
      // Newer than the table (the PTX ISA / CUDA release table of
      // cuda-facts.md 2.1-2.2): the driver it needs is unknown, so no
      // min-driver passes it and no threshold is invented.
      if (known) {
        auto cmp = device::compare_versions(have, need);
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
                          " is newer than any CUDA release this cuwheel knows; the driver it needs is unknown "
                          "(the policy's minimum driver is " + have + ")";
        if (g.entries > 1) msg += " (" + std::to_string(g.entries) + " entries)";
        out.emit(lib.member, at, msg,
                 "update cuwheel to a release that knows PTX ISA " + isa_s +
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
