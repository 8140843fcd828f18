// bundled-cuda-library: a CUDA toolkit library that an NVIDIA pip package
// provides (libclass: LibraryKind::cuda_toolkit) is shipped inside the wheel,
// found by file name or by DT_SONAME. NVIDIA's own wheels, which are the
// providers, are exempt for the libraries they provide.
#include <set>

#include "loading_util.h"
#include "rules.h"

namespace cuwheel::check::rule_impl {

namespace {
std::string provider_text(const LibraryClass& c) {
  std::string out;
  for (int major : {12, 13}) {
    const Provision* p = c.provision(major);
    if (!p) continue;
    out += std::string(out.empty() ? "" : "; ") + "CUDA " + std::to_string(major) + ": " + std::string(p->distribution);
    if (!p->toolkit_extra.empty()) out += " (cuda-toolkit[" + std::string(p->toolkit_extra) + "])";
  }
  return out;
}
}  // namespace

void bundled_cuda_library(const Context& ctx, Emitter& out) {
  std::set<std::string> flagged;
  auto flag = [&](const std::string& member, const std::string& name, const LibraryClass& c, const std::string& how) {
    if (!flagged.insert(member).second) return;
    if (loading::provided_by_self(ctx.model, member, name)) return;
    std::string prov = provider_text(c);
    // A grafted copy (auditwheel's libcudart-53d54daa.so.12.6.68) is still
    // the library; the NEEDED entries that name the copy must name the
    // original again, or no RUNPATH into NVIDIA's folder can find it.
    const std::string original = c.grafted ? grafted_original(name).value_or(name) : name;
    const Provision* p = c.major() ? c.provision(*c.major()) : nullptr;
    const std::string canonical = p ? std::string(p->soname) : original;
    out.emit(member, how,
             (c.grafted ? name + " is a renamed copy of " + canonical + ", " : name + " is ") +
                 "a CUDA library that NVIDIA's pip packages provide; shipping a copy duplicates it and can clash "
                 "with the packaged one",
             "leave it out of the wheel (auditwheel repair --exclude '" + original.substr(0, original.find(".so") + 3) +
                 "*')" +
                 (c.grafted ? ", make the libraries that NEED " + name + " name " + canonical +
                                  " again (rebuild without grafting it, or patchelf --replace-needed)"
                            : std::string()) +
                 ", declare the package in Requires-Dist" + (prov.empty() ? "" : " (" + prov + ")") +
                 " and point RUNPATH at its folder");
    out.attach_fix({"unbundle", member, p ? std::string(p->distribution) : std::string()});
  };
  for (const auto& m : ctx.model.members) {
    std::string base = base_name(m.name);
    auto c = classify_soname(base);
    if (c.kind == LibraryKind::cuda_toolkit) flag(m.name, base, c, "file name");
  }
  for (const auto& lib : ctx.model.libraries) {
    if (!loading::loadable(lib) || !lib.load.soname) continue;
    // Installed environments: NVIDIA's own distributions are the providers.
    if (!lib.owner.empty() && lookup_distribution(lib.owner)) continue;
    auto c = classify_soname(*lib.load.soname);
    if (c.kind == LibraryKind::cuda_toolkit) flag(lib.member, *lib.load.soname, c, "DT_SONAME");
  }
}

}  // namespace cuwheel::check::rule_impl
