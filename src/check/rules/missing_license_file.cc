// missing-license-file: the licence texts a wheel must carry. Two checks:
//   * every name in the policy's license-files (e.g. LICENSE, EULA.txt: the
//     CUDA EULA requires its text to travel with redistributed files,
//     field report 26) is a member somewhere in the wheel, matched by file
//     name (or by path suffix when the name has a `/`);
//   * every `License-File:` of METADATA exists. PEP 639 (core metadata 2.4):
//     the path is relative to .dist-info/licenses/. Before 2.4 the field was
//     written by setuptools and others with the file at .dist-info/<path>,
//     which is accepted for those versions.
#include <set>

#include "loading_util.h"
#include "rules.h"
#include "wheel_util.h"

namespace cuwheel::check::rule_impl {

namespace {

bool metadata_at_least_2_4(const std::string& mv) {
  auto v = Version::parse(mv);
  auto v24 = Version::parse("2.4");
  return v && v24 && *v >= *v24;
}

}  // namespace

void missing_license_file(const Context& ctx, Emitter& out) {
  const CheckModel& m = ctx.model;
  if (m.kind != CheckModel::Kind::wheel) return;
  std::set<std::string> names;
  for (const auto& mm : m.members) names.insert(mm.name);

  for (const auto& want : ctx.policy.license_files) {
    if (want.empty()) continue;
    bool found = false;
    for (const auto& n : names) {
      if (want.find('/') != std::string::npos) {
        found = n == want || (n.size() > want.size() && n.compare(n.size() - want.size(), want.size(), want) == 0 &&
                              n[n.size() - want.size() - 1] == '/');
      } else {
        found = base_name(n) == want;
      }
      if (found) break;
    }
    if (!found)
      out.emit("", "license-files",
               "the policy requires " + printable(want) + ", and no file of the " + std::string(loading::package_noun(m)) + " has that name",
               "ship it as a licence file (`license-files = [\"" + want +
                   "\"]` in [project], PEP 639), which puts it in " +
                   (m.dist_info.empty() ? std::string(".dist-info") : m.dist_info) + "/licenses/");
  }

  if (!m.metadata || m.dist_info.empty()) return;
  const bool v24 = metadata_at_least_2_4(m.metadata->metadata_version);
  for (const auto& lf : m.metadata->license_files) {
    const std::string in_licenses = m.dist_info + "/licenses/" + lf;
    const std::string in_dist_info = m.dist_info + "/" + lf;
    if (names.count(in_licenses)) continue;
    const std::string where = metadata_location(*m.metadata, "License-File", lf);
    if (names.count(in_dist_info)) {
      if (!v24) continue;
      out.emit(m.dist_info + "/METADATA", where,
               "License-File " + printable(lf) + " is at " + printable(in_dist_info) +
                   ", but Metadata-Version 2.4 puts licence files under licenses/",
               "rebuild with a backend that implements PEP 639 (it writes " + printable(in_licenses) + ")");
      continue;
    }
    out.emit(m.dist_info + "/METADATA", where,
             "License-File " + printable(lf) + " is not in the " + std::string(loading::package_noun(m)) + " (expected " + printable(in_licenses) + ")",
             "rebuild the wheel so that the licence file is copied, or drop the License-File line");
  }
}

}  // namespace cuwheel::check::rule_impl
