// build-machine-path: a DT_RPATH/DT_RUNPATH entry that names a directory of
// the machine the wheel was built on: any absolute path (/usr/local/cuda/lib64,
// /opt/...), or an entry that names a build tree (/tmp/, /build/, /home/,
// /root/, /__w/, /github/workspace, ...) anywhere in it. `$ORIGIN`-relative
// entries inside the wheel are fine. Field report 6 (cupy/cupy#1065).
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
}  // namespace

void build_machine_path(const Context& ctx, Emitter& out) {
  for (const auto& lib : ctx.model.libraries) {
    if (!loading::loadable(lib)) continue;
    auto where = lib.member.empty() ? std::nullopt : loading::install_path(lib.member);
    if (where) where = loading::dir_of(*where);
    for (const auto& e : loading::all_entries(lib, where)) {
      std::string tree = build_tree(e.raw);
      if (e.kind == loading::SearchEntry::Kind::absolute) {
        out.emit(lib.member, e.tag + " " + e.raw,
                 "absolute " + e.tag + " entry " + e.raw + (tree.empty() ? "" : " (a build-machine path)") +
                     " points outside the installed wheel; it finds whatever that path holds on the user's machine",
                 "remove it (build with -Wl,-rpath,'$ORIGIN/...' only, or let the repair step rewrite it) and reach "
                 "CUDA libraries through their pip packages' folders");
      } else if (!tree.empty() && (e.kind == loading::SearchEntry::Kind::relative || e.escapes)) {
        out.emit(lib.member, e.tag + " " + e.raw,
                 e.tag + " entry " + e.raw + " names a build tree (" + tree + ")",
                 "use $ORIGIN-relative entries that name folders inside the installed wheel or its dependencies");
      }
    }
  }
}

}  // namespace cuwheel::check::rule_impl
