// duplicate-symbol: two shipped libraries both export the same dynamic
// symbol with a strong (STB_GLOBAL) definition. Whichever loads first wins
// for every caller (interposition); registries and singletons then exist
// twice. Weak definitions (C++ inline functions and template instances,
// merged by design), the symbols every linker defines (_init, _fini, _edata,
// _end, __bss_start) and copies of one library under two names (same
// DT_SONAME) are not reported, nor Python extension modules (they export
// PyInit_* and Python loads them RTLD_LOCAL). Only libraries that can share
// one link map are compared: one loads the other, directly or not, or a
// common library loads both (model/loading.h link_maps); plugins and
// alternative backends opened one at a time with dlopen (bitsandbytes'
// backends, NVSHMEM's transports, onnxruntime's providers) are not
// duplicates. One finding per pair of libraries.
#include <map>
#include <set>
#include <string_view>

#include "loading_util.h"
#include "rules.h"

namespace cuwheel::check::rule_impl {

namespace {
bool ignored(const std::string& s) {
  for (std::string_view i : {"_init", "_fini", "_edata", "_end", "__bss_start", "_DYNAMIC", "_GLOBAL_OFFSET_TABLE_"})
    if (s == i) return true;
  return false;
}
}  // namespace

void duplicate_symbol(const Context& ctx, Emitter& out) {
  const auto& libs = ctx.model.libraries;
  std::map<std::string, size_t> owner;                          // symbol -> first library index
  std::map<std::pair<size_t, size_t>, std::vector<std::string>> clashes;
  std::set<std::string> sonames_seen;
  for (size_t i = 0; i < libs.size(); ++i) {
    const auto& lib = libs[i];
    if (!loading::loadable(lib) || lib.load.type != 3 /*ET_DYN*/) continue;
    // The same library under two file names (wheels have no symlinks).
    if (lib.load.soname && !sonames_seen.insert(*lib.load.soname).second) continue;
    // Python extension modules are loaded RTLD_LOCAL: their exports never
    // interpose on other libraries.
    bool extension = false;
    for (const auto& s : lib.exports) extension |= s.rfind("PyInit_", 0) == 0;
    if (extension) continue;
    for (size_t k = 0; k < lib.exports.size(); ++k) {
      const auto& s = lib.exports[k];
      if ((k < lib.export_weak.size() && lib.export_weak[k]) || ignored(s)) continue;
      auto [it, fresh] = owner.emplace(s, i);
      if (!fresh && it->second != i) clashes[{it->second, i}].push_back(s);
    }
  }
  // Pairs that some load maps together.
  const model::LoadResolution& loads = ctx.loads;
  std::set<std::pair<size_t, size_t>> together;
  for (const auto& map : loads.link_maps)
    for (size_t x : map)
      for (size_t y : map)
        if (x < y) together.emplace(x, y);
  for (const auto& [pair, all_syms] : clashes) {
    if (!together.count(pair)) continue;
    // Mangled C++ names can run to kilobytes: show a readable prefix.
    std::vector<std::string> syms;
    for (const auto& n : all_syms) syms.push_back(n.size() > 60 ? n.substr(0, 57) + "..." : n);
    const auto& a = libs[pair.first];
    const auto& b = libs[pair.second];
    out.emit(b.member, "dynamic symbols",
             b.member + " and " + a.member + " both export " + std::to_string(syms.size()) + " symbol" +
                 (syms.size() == 1 ? "" : "s") + " (" + loading::join_some(syms, 4) +
                 "); the first one loaded wins for every caller",
             "give each symbol one owner: hide it in one library (-fvisibility=hidden, a version script) or link the "
             "shared code once as its own library");
  }
}

}  // namespace cuwheel::check::rule_impl
