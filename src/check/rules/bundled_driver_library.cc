// bundled-driver-library: NVIDIA driver user-space libraries must come from
// the installed driver, matching its kernel module; a copy in a wheel breaks
// on every other driver version. Table: cuda-facts.md section 5
// (libnvidia-container's list), applied whatever the version suffix.
#include "rules.h"
#include "cuwheel/cuda/libclass.h"

namespace cuwheel::check::rule_impl {

void bundled_driver_library(const Context& ctx, Emitter& out) {
  auto flag = [&](const std::string& member, const std::string& name, const std::string& how) {
    out.emit(member, how, name + " is an NVIDIA driver library and must not be shipped",
             "exclude it from the repair step (auditwheel repair --exclude '" + name.substr(0, name.find(".so") + 3) +
                 "*') and load the system's copy at run time");
    out.attach_fix({"remove-member", member, ""});
  };
  for (const auto& m : ctx.model.members) {
    std::string base = base_name(m.name);
    if (classify_soname(base).kind == LibraryKind::nvidia_driver) flag(m.name, base, "file name");
  }
  for (const auto& lib : ctx.model.libraries) {
    if (!lib.is_elf || !lib.load.soname) continue;
    std::string base = base_name(lib.member);
    if (classify_soname(base).kind == LibraryKind::nvidia_driver) continue;  // flagged by name above
    if (classify_soname(*lib.load.soname).kind == LibraryKind::nvidia_driver)
      flag(lib.member, *lib.load.soname, "DT_SONAME");
  }
}

}  // namespace cuwheel::check::rule_impl
