// metadata-invalid: the wheel's own description of itself must be readable
// and agree with itself. Facts:
//   * PEP 427: the file name is {distribution}-{version}(-{build})?-{tags}.whl
//     and the metadata lives in {distribution}-{version}.dist-info/, which
//     holds METADATA and WHEEL; WHEEL has Wheel-Version and Root-Is-Purelib;
//   * core metadata spec: Metadata-Version, Name and Version are required,
//     Name is a valid project name, Version is PEP 440, each Requires-Dist
//     is a PEP 508 dependency specifier;
//   * names compare after PEP 503 normalization, versions as PEP 440
//     versions (so `1.0` in the file name and `1.0.0` in METADATA agree).
#include "rules.h"
#include "wheel_util.h"

namespace cuwheel::check::rule_impl {

void metadata_invalid(const Context& ctx, Emitter& out) {
  const CheckModel& m = ctx.model;
  if (!m.is_distribution()) return;
  const std::string rebuild = "build the wheel with a standards-compliant backend (setuptools, hatchling, "
                              "scikit-build-core, meson-python) rather than writing or editing its metadata by hand";
  if (!m.filename_error.empty())
    out.emit("", "file name", m.filename_error, "name the wheel {distribution}-{version}-{python}-{abi}-{platform}.whl");

  if (m.dist_info.empty()) {
    out.emit("", ".dist-info", m.metadata_error.empty() ? "no .dist-info directory" : m.metadata_error, rebuild);
    return;
  }
  const std::string metadata_name = m.dist_info + "/METADATA";
  const std::string wheel_name = m.dist_info + "/WHEEL";

  // The .dist-info directory against the file name.
  std::string stem = m.dist_info.substr(0, m.dist_info.size() - std::string(".dist-info").size());
  size_t dash = stem.find('-');
  std::string dir_name = stem.substr(0, dash);
  std::string dir_version = dash == std::string::npos ? std::string() : stem.substr(dash + 1);
  if (m.parsed_filename) {
    const auto& fn = *m.parsed_filename;
    if (normalize_name(dir_name) != normalize_name(fn.distribution) || !same_version(dir_version, fn.version))
      out.emit(m.dist_info + "/", ".dist-info",
               "the .dist-info directory names " + printable(dir_name) + " " + printable(dir_version) +
                   ", the file name " + printable(fn.distribution) + " " + printable(fn.version),
               rebuild);
  }

  if (!m.metadata) {
    out.emit(metadata_name, "", m.metadata_error.empty() ? "METADATA is missing" : m.metadata_error, rebuild);
  } else {
    const CoreMetadata& md = *m.metadata;
    if (!is_valid_name(md.name))
      out.emit(metadata_name, metadata_location(md, "Name"),
               "Name " + printable(md.name) + " is not a valid project name (letters, digits, `.`, `_`, `-`)", rebuild);
    auto v = Version::parse(md.version);
    if (!v)
      out.emit(metadata_name, metadata_location(md, "Version"), "Version: " + v.error().message(),
               "use a PEP 440 version such as 1.2.0, 1.2.0rc1 or 1.2.0+cu130");
    if (m.parsed_filename) {
      const auto& fn = *m.parsed_filename;
      if (normalize_name(md.name) != normalize_name(fn.distribution))
        out.emit(metadata_name, metadata_location(md, "Name"),
                 "METADATA Name " + printable(md.name) + " is not the file name's distribution " +
                     printable(fn.distribution) + " (PEP 503-normalized)",
                 rebuild);
      if (!same_version(md.version, fn.version))
        out.emit(metadata_name, metadata_location(md, "Version"),
                 "METADATA Version " + printable(md.version) + " is not the file name's version " +
                     printable(fn.version),
                 rebuild);
    } else {
      if (normalize_name(md.name) != normalize_name(dir_name) || !same_version(md.version, dir_version))
        out.emit(metadata_name, metadata_location(md, "Name"),
                 "METADATA names " + printable(md.name) + " " + printable(md.version) + ", the .dist-info directory " +
                     printable(dir_name) + " " + printable(dir_version),
                 rebuild);
    }
    for (const auto& t : md.requires_dist) {
      auto r = Requirement::parse(t);
      if (!r)
        out.emit(metadata_name, metadata_location(md, "Requires-Dist", t), "Requires-Dist: " + r.error().message(),
                 "write the dependency as PEP 508 specifies, e.g. `nvidia-cublas>=13.0; sys_platform == \"linux\"`");
    }
  }

  if (!m.wheel_info) {
    out.emit(wheel_name, "", m.wheel_info_error.empty() ? "WHEEL is missing" : m.wheel_info_error, rebuild);
  } else if (!m.wheel_info->root_is_purelib) {
    const std::string* raw = m.wheel_info->raw.get("Root-Is-Purelib");
    out.emit(wheel_name, "Root-Is-Purelib",
             raw ? "Root-Is-Purelib is " + printable(*raw) + ", not true or false" : "WHEEL has no Root-Is-Purelib",
             "WHEEL must say `Root-Is-Purelib: false` for a wheel with compiled code (true for pure Python)");
  }
}

}  // namespace cuwheel::check::rule_impl
