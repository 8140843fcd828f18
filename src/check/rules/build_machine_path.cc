// build-machine-path: a DT_RPATH/DT_RUNPATH entry that names a directory of
// the machine the wheel was built on: any absolute path (/usr/local/cuda/lib64,
// /opt/...), or an entry that names a build tree (/tmp/, /build/, /home/,
// /root/, /__w/, /github/workspace, ...) anywhere in it. `$ORIGIN`-relative
// entries inside the wheel are fine. Field report 6 (cupy/cupy#1065).
//
// An absolute entry can only do harm for the names the loader searches it
// for. When every DT_NEEDED of the library is the system's or the driver's,
// a library a declared dependency has loaded first (found by soname, no
// search), or found through an $ORIGIN entry that comes before the absolute
// one, the entry is never consulted for a CUDA library: a note (catboost's
// /home/runner/... entries, bitsandbytes' /usr/local/cuda-12.x entries
// beside a torch that loads libcudart).
//
// A plugin that the package opens with dlopen only when it is chosen
// (model/loading.h: plugin_evidence; bitsandbytes' ROCm backends with
// /opt/rocm/lib, nvshmem's MPI bootstrap) searches the entry only on the
// machines that choose it, where it usually names the runtime's standard
// prefix: a warning. When the entry is that standard prefix of a runtime
// the plugin NEEDs (/opt/rocm[-X.Y.Z][/core-X.Y]/lib for a ROCm backend that
// NEEDs libamdhip64 or a HIP/ROCm library; /usr/local/cuda[-X.Y]/lib64 or
// .../targets/<arch>-linux/lib for one that NEEDs a CUDA library of that
// release's major), it is where the machines that choose the backend have
// the runtime: a note (bitsandbytes' ROCm and CUDA 11.8 backends).
#include <regex>
#include <string_view>

#include "loading_util.h"
#include "rules.h"

namespace cuwheel::check::rule_impl {

namespace {
constexpr std::string_view kBuildTrees[] = {
    "/tmp/", "/build/", "/home/", "/root/", "/__w/", "/github/workspace", "/var/lib/jenkins", "/conda-bld/",
};

std::string build_tree(const std::string& entry) {
  for (auto t : kBuildTrees)
    if (entry.find(t) != std::string::npos || entry + "/" == t) return std::string(t);
  return "";
}
// The runtime whose standard install prefix `entry` is, when `lib` NEEDs
// a library of it: "ROCm" or "CUDA 11.8"; "" otherwise.
std::string standard_runtime_prefix(const std::string& entry, const LibraryModel& lib) {
  static const std::regex rocm(R"(^/opt/rocm(-[0-9]+(\.[0-9]+)*)?(/core-[0-9]+(\.[0-9]+)*)?/lib(64)?/?$)");
  static const std::regex cuda(R"(^/usr/local/cuda(-([0-9]+)\.([0-9]+))?/(lib64|targets/[A-Za-z0-9_]+-linux/lib)/?$)");
  std::smatch mt;
  if (std::regex_match(entry, rocm)) {
    // ROCm's own libraries (HIP and its math libraries, the roc* ones,
    // RCCL, MIOpen), by name: not every "libroc..." is ROCm's (librocksdb).
    static constexpr std::string_view kRocm[] = {
        "libamdhip64.so", "libhip",        "librocblas.so",   "librocrand.so", "librocsolver.so", "librocsparse.so",
        "librocfft.so",   "librocprim",    "libroctx64.so",   "librocm",       "librccl.so",      "libMIOpen.so"};
    for (const auto& n : lib.load.needed)
      for (auto r : kRocm)
        if (n.rfind(r, 0) == 0) return "ROCm";
    return "";
  }
  if (std::regex_match(entry, mt, cuda)) {
    const std::optional<int> major = mt[2].matched ? std::optional<int>(std::stoi(mt[2].str())) : std::nullopt;
    for (const auto& n : lib.load.needed) {
      // libcudart.so.11.0, libcublas.so.12: the major is the first number
      // after ".so." (CUDA 11's pip-less names are outside NVIDIA's tables).
      const auto c = classify_soname(n);
      const size_t so = n.find(".so.");
      const bool cuda_name = c.kind == LibraryKind::cuda_toolkit || n.rfind("libcudart.so", 0) == 0 ||
                             n.rfind("libcublas", 0) == 0 || n.rfind("libcusparse.so", 0) == 0;
      if (!cuda_name) continue;
      // A versioned prefix (cuda-11.8) holds that major only: a name
      // without a version says nothing about which one it is.
      if (major && (so == std::string::npos || std::atoi(n.c_str() + so + 4) != *major)) continue;
      return major ? "CUDA " + mt[2].str() + "." + mt[3].str() : "CUDA";
    }
  }
  return "";
}
}  // namespace

void build_machine_path(const Context& ctx, Emitter& out) {
  const CheckModel& m = ctx.model;
  const auto declared = loading::declared_distributions(m);
  const model::LoadResolution& loads = ctx.loads;
  for (size_t li = 0; li < m.libraries.size(); ++li) {
    const LibraryModel& lib = m.libraries[li];
    if (!loading::loadable(lib)) continue;
    auto where = lib.member.empty() ? std::nullopt : loading::install_path(lib.member);
    if (where) where = loading::dir_of(*where);
    const auto searched = loading::search_entries(lib, where);
    auto harmless = [&](size_t pos) { return loading::entry_never_decides(ctx, loads, li, searched, pos, declared); };
    for (const auto& e : loading::all_entries(lib, where)) {
      std::string tree = build_tree(e.raw);
      std::string runtime;  // standard_runtime_prefix(), for plugins
      const size_t here = loading::search_position(searched, e);
      if (e.kind == loading::SearchEntry::Kind::absolute && harmless(here)) {
        out.note(lib.member, e.tag + " " + e.raw,
                 "absolute " + e.tag + " entry " + e.raw + (tree.empty() ? "" : " (a build-machine path)") +
                     " points outside the installed wheel, but the loader never searches it for a library that "
                     "could be there: every DT_NEEDED is the system's, the driver's, loaded by a declared "
                     "dependency or found through an entry before it",
                 "remove it (build with -Wl,-rpath,'$ORIGIN/...' only, or let the repair step rewrite it)");
      } else if (e.kind == loading::SearchEntry::Kind::absolute && !loads.plugin[li].empty() && tree.empty() &&
                 !(runtime = standard_runtime_prefix(e.raw, lib)).empty()) {
        out.note(lib.member, e.tag + " " + e.raw,
                 "absolute " + e.tag + " entry " + e.raw + " is the standard prefix of the " + runtime +
                     " runtime this library NEEDs; it is a plugin opened with "
                     "dlopen when it is chosen at run time (" + loads.plugin[li] + "), so only the machines that "
                     "choose this backend search there, where that runtime is usually installed",
                 "nothing to do; to stay independent of the install prefix, find the runtime through its pip "
                 "packages' folders or the loader's default paths");
      } else if (e.kind == loading::SearchEntry::Kind::absolute && !loads.plugin[li].empty()) {
        out.warn(lib.member, e.tag + " " + e.raw,
                 "absolute " + e.tag + " entry " + e.raw + (tree.empty() ? "" : " (a build-machine path)") +
                     " points outside the installed wheel; the library is a plugin opened with dlopen when it is "
                     "chosen at run time (" + loads.plugin[li] + "), so only the machines that choose it search "
                     "there, and they find whatever that path holds",
                 "remove it, or keep it only where it names the standard prefix of the runtime the plugin is for");
        out.attach_fix({"drop-search-entry", lib.member, e.raw});
      } else if (e.kind == loading::SearchEntry::Kind::absolute) {
        out.emit(lib.member, e.tag + " " + e.raw,
                 "absolute " + e.tag + " entry " + e.raw + (tree.empty() ? "" : " (a build-machine path)") +
                     " points outside the installed wheel; it finds whatever that path holds on the user's machine",
                 "remove it (build with -Wl,-rpath,'$ORIGIN/...' only, or let the repair step rewrite it) and reach "
                 "CUDA libraries through their pip packages' folders");
        out.attach_fix({"drop-search-entry", lib.member, e.raw});
      } else if (!tree.empty() && (e.kind == loading::SearchEntry::Kind::relative || e.escapes)) {
        out.emit(lib.member, e.tag + " " + e.raw,
                 e.tag + " entry " + e.raw + " names a build tree (" + tree + ")",
                 "use $ORIGIN-relative entries that name folders inside the installed wheel or its dependencies");
        out.attach_fix({"drop-search-entry", lib.member, e.raw});
      }
    }
  }
}

}  // namespace cuwheel::check::rule_impl
