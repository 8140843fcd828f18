// cuwheel: the manylinux platform tags (PEP 600, and the legacy aliases of
// PEP 513, PEP 571 and PEP 599) and the symbol versions each allows.
//
// Table: pypa/auditwheel src/auditwheel/policy/manylinux-policy.json,
// "symbol_versions" for x86_64 (the highest numeric GLIBC, GLIBCXX and
// CXXABI version per policy), read at commit 86154d1 (2026-08).
// GLIBC_ABI_DT_RELR, listed from manylinux_2_36 on, counts as glibc 2.36.
// A glibc between two rows uses the nearest lower row for GLIBCXX and CXXABI.
// The `platform-tag` rule judges a wheel's tag with it, and `repair`
// chooses the most compatible tag with it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cuwheel {

/// One manylinux policy: manylinux_2_<glibc_minor> and the highest
/// GLIBCXX_3.4.z and CXXABI_1.3.z versions it allows.
struct ManylinuxPolicy {
  int glibc_minor = 0;
  std::vector<int> glibcxx, cxxabi;
};

/// Every policy of the table, oldest first (manylinux1 = 2_5 to 2_41).
const std::vector<ManylinuxPolicy>& manylinux_policies();

/// The glibc minor a platform tag promises: manylinux1_* 5,
/// manylinux2010_* 12, manylinux2014_* 17, manylinux_2_<m>_* m; nullopt for
/// tags that promise none (linux_*, musllinux_*, macOS, Windows).
std::optional<int> platform_tag_glibc(std::string_view tag);

/// The policy row that applies to glibc 2.<minor>: the row of that minor,
/// or the nearest lower one; nullptr below manylinux1.
const ManylinuxPolicy* manylinux_policy_for(int glibc_minor);

/// A dotted version ("2.34", "3.4.21") as numbers; nullopt when it is not
/// digits and dots.
std::optional<std::vector<int>> parse_dotted_version(std::string_view text);
/// The inverse: {3, 4, 21} -> "3.4.21".
std::string dotted_version_text(const std::vector<int>& v);

/// The highest GLIBC, GLIBCXX and CXXABI versions a set of libraries needs
/// (their .gnu.version_r entries), each with the library and the version
/// string that set it.
struct SymbolVersionNeeds {
  struct Max {
    std::vector<int> version;
    std::string member;  ///< the library that needs it
    std::string text;    ///< "GLIBC_2.34"
  };
  std::optional<Max> glibc, glibcxx, cxxabi;
  /// Counts one version string needed by `member`: GLIBC_x.y,
  /// GLIBC_ABI_DT_RELR (2.36), GLIBCXX_x.y.z, CXXABI_x.y.z; others are
  /// ignored (GCC_, libraries' own versions).
  void add(const std::string& member, const std::string& version);
  /// True when the policy of glibc 2.<minor> allows all of them.
  bool allowed_by(int glibc_minor) const;
};

/// The lowest glibc minor of the table (at least `floor`) whose policy
/// allows `needs`: the most compatible manylinux tag. nullopt when none
/// does (a need newer than the newest row).
std::optional<int> most_compatible_glibc(const SymbolVersionNeeds& needs, int floor = 17);

/// The platform tags auditwheel writes for glibc 2.<minor> on `arch`
/// ("x86_64", "aarch64"): "manylinux_2_<minor>_<arch>", followed by the
/// legacy alias where there is one ("manylinux2014_x86_64" for 2_17,
/// "manylinux2010_*" for 2_12, "manylinux1_*" for 2_5), in the order
/// auditwheel writes them into a file name
/// (numpy-2.2.0-cp312-cp312-manylinux_2_17_x86_64.manylinux2014_x86_64.whl).
std::vector<std::string> manylinux_tags(int glibc_minor, std::string_view arch);

}  // namespace cuwheel
