// undeclared-dependency: a library of the wheel NEEDs a CUDA library
// (libclass: cuda_toolkit) that it does not ship, and Requires-Dist declares
// no NVIDIA package that installs it, neither directly, nor through
// cuda-toolkit[extra], nor behind an extra. The map from soname to
// distribution is per CUDA major (libclass); where a soname fits both majors,
// the wheel's claimed major decides. One finding per missing distribution.
// Field report 18 (pytorch/pytorch#146679).
//
// A name that a declared dependency puts in the process (model/providers.h:
// torch's libraries NEED libcudart.so.13 and torch requires its package) is
// a note naming that dependency: pip installs the NVIDIA package through it.
//
// A name the wheel's Python code loads through cuda.pathfinder
// (load_nvidia_dynamic_lib, CheckModel::python_loads) while the wheel
// declares cuda-pathfinder is a note: pathfinder looks in the NVIDIA
// wheels, conda and the system CUDA in turn and raises a clear error when
// none has it, so the package leaves the choice of CUDA to the user
// (cupy-cuda12x: NCCL and cuTENSOR from any of the three).
#include <algorithm>
#include <map>
#include <set>


#include "dependency_common.h"
#include "rules.h"

namespace cuwheel::check::rule_impl {

void undeclared_dependency(const Context& ctx, Emitter& out) {
  const auto& m = ctx.model;
  if (!m.is_distribution()) return;
  auto reqs = loading::read_requirements(m);
  auto claim = loading::claimed_major(m, ctx.policy, reqs);
  const model::Tree& tree = ctx.tree;
  std::set<std::string> shipped;
  for (const auto& [d, names] : tree.files) shipped.insert(names.begin(), names.end());
  std::string self = loading::wheel_name(m);
  struct Missing {
    std::string member, extra;
    std::set<std::string> names;
    size_t libs = 0;
  };
  std::map<std::string, Missing> missing;  // distribution -> what needs it
  std::map<std::string, Missing> through;  // "dist via dep" -> what needs it (notes)
  std::map<std::string, Missing> by_pathfinder;  // distribution -> what needs it (notes)
  const auto deps = loading::declared_distributions(m);  // declared distributions -> Requires-Dist text
  auto declared_provider = [&](const std::string& n) { return loading::declared_provider(ctx, deps, n); };
  const bool has_pathfinder = deps.count("cuda-pathfinder") > 0;
  auto pathfinder_load = [&](const std::string& n) -> const model::PythonLoad* {
    if (!has_pathfinder) return nullptr;
    for (const auto& l : m.python_loads)
      if (l.kind == model::PythonLoad::Kind::pathfinder && l.loads(n)) return &l;
    return nullptr;
  };
  for (const auto& lib : m.libraries) {
    if (!loading::loadable(lib)) continue;
    std::set<std::string> counted;
    for (const auto& n : lib.load.needed) {
      auto c = classify_soname(n);
      if (c.kind != LibraryKind::cuda_toolkit || shipped.count(n)) continue;
      auto majors = loading::candidate_majors(c, claim);
      if (majors.empty()) continue;
      bool ok = false;
      std::string want, extra;
      for (int major : majors) {
        const Provision* p = c.provision(major);
        if (std::string(p->distribution) == self || reqs.has(std::string(p->distribution))) ok = true;
        if (want.empty()) {
          want = std::string(p->distribution);
          extra = std::string(p->toolkit_extra);
        } else {
          want += " or " + std::string(p->distribution);
        }
      }
      if (ok) continue;
      if (const model::PythonLoad* l = pathfinder_load(n)) {
        auto& t = by_pathfinder[want];
        if (t.member.empty()) t.member = lib.member;
        t.extra = l->describe();
        t.names.insert(n);
        if (counted.insert("pathfinder\n" + want).second) ++t.libs;
        continue;
      }
      if (const model::Provider* p = declared_provider(n)) {
        auto& t = through[want + "\n" + p->distribution];
        if (t.member.empty()) t.member = lib.member;
        t.extra = p->source;
        t.names.insert(n);
        if (counted.insert(want + "\n" + p->distribution).second) ++t.libs;
        continue;
      }
      auto& miss = missing[want];
      if (miss.member.empty()) miss.member = lib.member;
      miss.extra = extra;
      miss.names.insert(n);
      if (counted.insert(want).second) ++miss.libs;
    }
  }
  // Sonames a library holds as strings (LibraryModel::dlopen_names: it
  // opens them by name at run time, ctranslate2's libcublas.so.12) and
  // nothing declares: a warning, since such a library can say what it
  // misses when it is used, but pip will not install it.
  std::map<std::string, Missing> opened;
  for (const auto& lib : m.libraries) {
    if (!loading::loadable(lib)) continue;
    // A library that names one CUDA library under two versions
    // ("libcublas.so.12" and "libcublas.so.13") probes for whichever is
    // installed, or only knows the names (a table, as cuwheel's own binary
    // holds): no one package is what it needs, so neither is asked for.
    std::map<std::string, std::set<std::string>, std::less<>> versions;  // "libcublas" -> {"12", "13"}
    for (const auto& n : lib.dlopen_names) {
      size_t so = n.find(".so.");
      if (so != std::string::npos) versions[n.substr(0, so)].insert(n.substr(so + 4));
    }
    bool multi_major = false;  // some CUDA library named under two versions
    for (const auto& [stem, vs] : versions)
      multi_major = multi_major || (vs.size() > 1 && classify_soname(stem + ".so." + *vs.begin()).kind ==
                                                         LibraryKind::cuda_toolkit);
    auto probes_versions = [&](const std::string& n) {
      size_t so = n.find(".so.");
      auto it = so == std::string::npos ? versions.end() : versions.find(n.substr(0, so));
      if (it != versions.end() && it->second.size() > 1) return true;
      // In such a library, a soname both majors share (libcudnn.so.9,
      // libnccl.so.2) comes from a different package per major, and one of
      // a single major (libnvToolsExt.so.1, CUDA 12 only) is used only with
      // that major: which one is the user's choice. Only a package that is
      // the same for both majors is still asked for.
      if (!multi_major) return false;
      auto c = classify_soname(n);
      const Provision* p12 = c.provision(12);
      const Provision* p13 = c.provision(13);
      return !(p12 && p13 && std::string(p12->distribution) == std::string(p13->distribution));
    };
    std::set<std::string> counted;
    for (const auto& n : lib.dlopen_names) {
      auto c = classify_soname(n);
      if (c.kind != LibraryKind::cuda_toolkit || shipped.count(n) || probes_versions(n)) continue;
      // An unversioned development name ("libcudart.so") is in no NVIDIA
      // pip package: declaring one would not make that dlopen work.
      if (n.size() > 3 && n.compare(n.size() - 3, 3, ".so") == 0) continue;
      if (std::find(lib.load.needed.begin(), lib.load.needed.end(), n) != lib.load.needed.end()) continue;
      auto majors = loading::candidate_majors(c, claim);
      if (majors.empty()) continue;
      bool ok = false;
      std::string want;
      for (int major : majors) {
        const Provision* p = c.provision(major);
        ok = ok || std::string(p->distribution) == self || reqs.has(std::string(p->distribution));
        want += (want.empty() ? "" : " or ") + std::string(p->distribution);
      }
      // Either major's package declared: the library holds both majors'
      // names and opens the one that matches.
      for (int major : {12, 13})
        if (const Provision* p = c.provision(major)) ok = ok || reqs.has(std::string(p->distribution));
      if (ok || missing.count(want) || declared_provider(n) || pathfinder_load(n)) continue;
      auto& o = opened[want];
      if (o.member.empty()) o.member = lib.member;
      o.names.insert(n);
      if (counted.insert(want).second) ++o.libs;
    }
  }
  for (const auto& [dist, o] : opened) {
    std::vector<std::string> names(o.names.begin(), o.names.end());
    out.warn(o.member, "dlopen " + names.front(),
             loading::join_some(names, 3) + " (opened by name by " + std::to_string(o.libs) + " librar" +
                 (o.libs == 1 ? "y" : "ies") + ": the soname is a string in its read-only data) comes from " + dist +
                 ", which Requires-Dist does not declare: it is found only where a CUDA toolkit is installed "
                 "system-wide or another package brought it",
             "declare " + dist + " (behind an extra if the feature is optional)");
  }
  for (const auto& [key, t] : through) {
    const std::string dist = key.substr(0, key.find('\n')), dep = key.substr(key.find('\n') + 1);
    std::vector<std::string> names(t.names.begin(), t.names.end());
    out.note(t.member, "DT_NEEDED " + names.front(),
             loading::join_some(names, 3) + " (needed by " + std::to_string(t.libs) + " librar" +
                 (t.libs == 1 ? "y" : "ies") + ") comes from " + dist + ", which Requires-Dist does not declare; " +
                 dep + " (declared: " + deps.at(dep) + ") loads it [" + t.extra + "], so installing " + dep +
                 " brings it",
             "declare " + dist + " as well if this library may load without " + dep);
  }
  for (const auto& [dist, t] : by_pathfinder) {
    std::vector<std::string> names(t.names.begin(), t.names.end());
    out.note(t.member, "DT_NEEDED " + names.front(),
             loading::join_some(names, 3) + " (needed by " + std::to_string(t.libs) + " librar" +
                 (t.libs == 1 ? "y" : "ies") + ") comes from " + dist +
                 ", which Requires-Dist does not declare; the package loads it through cuda.pathfinder (" + t.extra +
                 ", declared: " + deps.at("cuda-pathfinder") +
                 "), which finds it in an NVIDIA wheel, conda or the system CUDA, and says so when none has it",
             "declare " + dist + " (or behind an extra) if the package should bring it itself");
  }
  for (const auto& [dist, miss] : missing) {
    std::vector<std::string> names(miss.names.begin(), miss.names.end());
    out.emit(miss.member, "DT_NEEDED " + names.front(),
             loading::join_some(names, 3) + " (needed by " + std::to_string(miss.libs) + " librar" +
                 (miss.libs == 1 ? "y" : "ies") + ") comes from " + dist + ", which Requires-Dist does not declare",
             "add Requires-Dist: " + dist + (miss.extra.empty() ? "" : " (or cuda-toolkit[" + miss.extra + "])") +
                 " with a lower bound matching the toolkit you built with");
  }
}

}  // namespace cuwheel::check::rule_impl
