// Reading an RPM repository's metadata and resolving a closed set of
// packages in it, for `cuwheel toolkit lock`.
//
// Sources of the format facts:
//  - repodata layout, repomd.xml and primary.xml: the createrepo_c
//    documentation and the rpm-metadata specification used by dnf/libsolv
//    (https://github.com/rpm-software-management/createrepo_c,
//    "Repository metadata", rpm-software-management docs). repomd.xml lists
//    each metadata file as <data type="primary"> with <checksum type=...>
//    (of the file as stored, i.e. compressed), <location href=...> and
//    <size>; primary.xml holds one <package type="rpm"> per RPM with <name>,
//    <arch>, <version epoch ver rel>, <checksum type pkgid> (of the whole
//    .rpm file), <size package=...>, <location href>, and in <format> the
//    rpm:provides / rpm:requires entries (name, flags EQ|LT|LE|GT|GE, epoch,
//    ver, rel) and a subset of the file list.
//  - Version comparison: rpm's rpmvercmp() (rpmio/rpmvercmp.c) and the RPM
//    reference manual, "Version comparison" (rpm.org/docs, rpm-version(7)):
//    versions are split into maximal runs of digits or of ASCII letters,
//    other characters only separate; digit runs compare numerically
//    (leading zeros ignored) and beat letter runs; letter runs compare with
//    strcmp; `~` sorts before anything (even the end: 1.0~rc1 < 1.0) and
//    `^` after the end but before any further segment (1.0 < 1.0^git1 <
//    1.0.1).
//  - EVR comparison and dependency ranges: rpm's rpmdsCompare() and
//    rpmVersionCompare(): epoch first (missing = 0), then version, then
//    release, where a release missing on either side is not compared
//    ("foo >= 1.2" is met by 1.2-5).
//  - filelists.xml (same sources): <filelists><package pkgid="SHA" name=
//    arch=><version epoch ver rel/><file [type="dir"|"ghost"]>/path</file>
//    ...</package>, one entry per package, pkgid being primary.xml's
//    <checksum pkgid="YES">; repomd.xml names it as <data type="filelists">.
//
// File requirements: primary.xml lists only files under /etc/, files whose
// path contains "bin/" and /usr/lib/sendmail (createrepo_c's primary file
// filter). When a resolution is left with a file requirement no listed file
// provides, read_filelists_if_needed() reads filelists.xml, as dnf/libsolv
// do, keeping only the paths the repository's packages require, and adds
// them to those packages' `files`; a second resolution then finds the
// provider in the repository. A file requirement nothing provides even
// then (e.g. /bin/sh, /sbin/ldconfig) is external, never an error.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cuwheel/base/expected.h"

namespace cuwheel::toolkit {

// ---- versions -------------------------------------------------------------

/// Compares two version (or release) strings with rpm's rpmvercmp rules.
/// Returns -1, 0 or 1.
int rpmvercmp(std::string_view a, std::string_view b);

/// An epoch:version-release triple. `epoch` is kept as the decimal text
/// ("" = 0); `release` may be empty (a requirement such as "foo >= 1.2").
struct Evr {
  std::string epoch;
  std::string version;
  std::string release;
};

/// Parses "[E:]V[-R]" (the release is what follows the last '-').
Evr parse_evr(std::string_view text);

/// "[E:]V[-R]": the epoch is omitted when it is empty or 0, the release
/// when it is empty.
std::string format_evr(const Evr& evr);

/// Compares epochs numerically (missing = 0), then versions, then releases
/// with rpmvercmp; releases are compared only when both are non-empty.
/// Returns -1, 0 or 1.
int compare_evr(const Evr& a, const Evr& b);

// ---- metadata -------------------------------------------------------------

/// Comparison of a dependency's version range, as primary.xml's `flags`.
enum class DepFlags { kAny, kEq, kLt, kLe, kGt, kGe };

/// One rpm:entry of <rpm:provides> or <rpm:requires>.
struct Dependency {
  std::string name;               ///< "cuda-cudart", "/bin/sh", "rpmlib(PayloadIsXz)"
  DepFlags flags = DepFlags::kAny;
  Evr evr;                        ///< meaningful when flags != kAny
  bool pre = false;               ///< pre="1" (Requires(pre)/(post)); treated like a plain requirement
};

/// "name", or "name >= E:V-R" as rpm prints it.
std::string format_dependency(const Dependency& d);

/// True when a package providing `provide` meets `require` (same name
/// assumed): unversioned on either side always matches; otherwise the two
/// ranges must overlap (rpmdsCompare).
bool range_satisfies(const Dependency& provide, const Dependency& require);

/// One package of primary.xml.
struct Package {
  std::string name;
  std::string arch;              ///< "x86_64", "noarch", "i686", "src", ...
  Evr evr;
  std::string checksum_type;     ///< of the .rpm file: "sha256" on NVIDIA's repos
  std::string checksum;          ///< lower-case hex
  uint64_t size = 0;             ///< <size package=...>, bytes of the .rpm file
  std::string location;          ///< <location href>, relative to the repository
  std::vector<Dependency> provides;
  std::vector<Dependency> requires_;  ///< `requires` is a C++20 keyword
  std::vector<std::string> files;     ///< the files primary.xml lists (a subset)
};

/// One <data type="..."> entry of repomd.xml.
struct RepomdEntry {
  std::string location;        ///< e.g. "repodata/<sha>-primary.xml.gz"
  std::string checksum_type;   ///< "sha256" (also "sha384"/"sha512" accepted)
  std::string checksum;        ///< of the stored (compressed) file, lower-case hex
  uint64_t size = 0;           ///< bytes of the stored file; 0 = not given
};

/// The entries of repomd.xml that `toolkit lock` reads.
struct Repomd {
  RepomdEntry primary;
  std::optional<RepomdEntry> filelists;  ///< absent when repomd.xml has no <data type="filelists">
};

/// Parses repomd.xml: its <data type="primary"> entry (required) and its
/// <data type="filelists"> entry (optional; when present it is validated
/// like primary). `where` prefixes messages (the URL). Errors: XML syntax
/// (with line), a DOCTYPE (refused, so no entity expansion), no primary
/// entry, an entry without location or checksum, a <size> that is not a
/// decimal number.
Expected<Repomd> parse_repomd(std::string_view xml, const std::string& where);

/// Decompresses a metadata file (gzip, xz, zstd, bzip2, or none: the filter
/// is detected from the bytes by libarchive's raw format). Errors: corrupt
/// stream, output larger than `max_bytes`.
Expected<std::string> decompress_metadata(std::string_view data, const std::string& where,
                                          uint64_t max_bytes);

/// Parses primary.xml (already decompressed) with expat, streaming; only
/// <package type="rpm"> entries are kept. Errors name `where` and the XML
/// line: syntax errors, a DOCTYPE, a package without name/arch/version/
/// location, a non-numeric size.
Expected<std::vector<Package>> parse_primary(std::string_view xml, const std::string& where);

/// A repository's packages and where they came from.
struct Repository {
  std::string base;              ///< URL or folder the metadata was read from
  std::string primary_location;  ///< as in repomd.xml
  std::optional<RepomdEntry> filelists;  ///< repomd.xml's filelists entry, if any (not read yet)
  std::vector<Package> packages;
};

/// Reads `base`/repodata/repomd.xml, then the primary metadata it names,
/// checks its size and checksum against repomd.xml *before* decompressing
/// or parsing it, and parses it. filelists.xml is only recorded
/// (`filelists`), not fetched. `base` is an http(s):// or file:// URL or a
/// folder (see toolkit_http.h). Errors name the URL: unreadable file,
/// "checksum mismatch: repomd.xml says X, file has Y", parse errors.
Expected<Repository> load_repository(const std::string& base);

// ---- filelists.xml --------------------------------------------------------

/// Cap on the decompressed size of filelists.xml, bytes. The XML is parsed
/// as it is decompressed, so memory does not grow with it; the cap bounds
/// the time a hostile (or broken) stream can take (the same 4 GiB as
/// primary.xml's; a real filelists.xml is several times larger than its
/// primary.xml).
inline constexpr uint64_t kMaxFilelistsXml = 4ull << 30;

/// One <package> of filelists.xml, with only the wanted files it lists.
struct FilelistsPackage {
  std::string pkgid;               ///< lower-case hex; primary.xml's package checksum
  std::string name;
  std::string arch;
  Evr evr;
  std::vector<std::string> files;  ///< the wanted paths it lists (files, directories, ghosts), in order
  uint64_t line = 0;               ///< XML line of its <package> element, for messages
};

/// Decompresses `stored` (gzip, xz, zstd, bzip2 or none, detected from the
/// bytes as decompress_metadata does) and parses it as filelists.xml with
/// expat, both streaming: no copy of the whole XML and no map of every file
/// is made. Returns the packages that list at least one path of `wanted`,
/// in document order, each with only those paths. Errors name `where` and,
/// for XML problems, the line: corrupt or truncated stream, more than
/// `max_xml_bytes` of XML, syntax errors (a truncated document is "no
/// element found"), a DOCTYPE (refused), a <package> without pkgid, name,
/// arch or <version ver>, nested packages, a path longer than 64 KiB.
Expected<std::vector<FilelistsPackage>> parse_filelists(std::string_view stored, const std::string& where,
                                                        const std::vector<std::string>& wanted,
                                                        uint64_t max_xml_bytes = kMaxFilelistsXml);

/// What reading filelists.xml gave.
struct FilelistsRead {
  bool needed = false;             ///< the resolution left file requirements no primary-listed file meets
  bool read = false;               ///< filelists.xml was fetched and parsed
  std::string location;            ///< repomd.xml's filelists location ("" = the repository has none)
  std::vector<std::string> wanted; ///< the paths looked for, sorted
  std::vector<std::string> found;  ///< those that some package lists, sorted
};

/// Fetches repo.filelists from repo.base through the path primary takes
/// (http_get; size and checksum checked against repomd.xml *before*
/// decompressing), parses it with parse_filelists() for `wanted`, matches
/// each package holding a wanted path to its primary.xml package by pkgid
/// (the package checksum) and name, arch and EVR, and appends the paths to
/// that package's `files` (once each). Errors name the URL (and the XML
/// line): no filelists entry, a location that leaves the repository, an
/// unsupported checksum type, "size N, repomd.xml says M", "checksum
/// mismatch: repomd.xml says X, file has Y", the errors of
/// parse_filelists(), and a package holding a wanted path that primary.xml
/// does not have ("package N-EVR.A (pkgid P) is not in primary.xml").
/// On error `repo` is left unchanged.
Expected<FilelistsRead> load_filelists(Repository& repo, const std::vector<std::string>& wanted,
                                       uint64_t max_xml_bytes = kMaxFilelistsXml);

// ---- resolution -----------------------------------------------------------

/// NVIDIA's per-release package name: ("cuda-nvcc", "12.9") ->
/// "cuda-nvcc-12-9". A name that already ends with "-12-9" is returned
/// unchanged, so full names are accepted too.
std::string release_package_name(const std::string& name, const std::string& release);

/// The releases ("12.8", "12.9", ...) for which the repository has
/// `base`-X-Y, sorted by version.
std::vector<std::string> releases_with(const Repository& repo, const std::string& base);

/// What to lock.
struct ResolveRequest {
  std::string release;                ///< "X.Y"
  std::vector<std::string> packages;  ///< short ("cuda-nvcc") or full ("cuda-nvcc-12-9") names
  std::string arch = "x86_64";        ///< the main architecture; noarch is always allowed
};

/// A closed set.
struct Resolution {
  std::vector<std::string> requested;  ///< full names, sorted
  std::vector<Package> packages;       ///< the closed set, sorted by name, arch, EVR
  std::vector<std::string> external;   ///< requirements left to the system, sorted, unique
  /// For each chosen package, why it is in (parallel to `packages`):
  /// "requested" or "<requirement> (required by <package>)".
  std::vector<std::string> reasons;
};

/// Resolves `req` inside `repo`:
///  - each requested name becomes release_package_name(name, release); the
///    candidates are the packages of that name whose arch is req.arch or
///    noarch; the highest EVR wins (main arch before noarch on a tie);
///  - every requirement of every chosen package is then satisfied, until
///    nothing new is added: by a chosen package if one meets it, else by
///    the best provider (by package name, rpm:provides entries with their
///    version ranges, or a listed file), preferring a package whose name
///    carries the release suffix "-X-Y", then the highest EVR, then the
///    main arch, then the smaller name;
///  - `rpmlib(...)` requirements and those a package meets itself are
///    ignored; a requirement met by nothing in the repository is external
///    when it is a file path, a rich (boolean) dependency, or a name outside
///    NVIDIA's namespaces (cuda-*, libcu*, libnv*, libnpp*, nvidia-*,
///    nsight-*, gds-*).
/// Errors (the caller reports them as findings, exit 1), all collected,
/// one per line: a requested package missing for the release ("cuda-nvcc-12-10
/// not in repository; releases with cuda-nvcc: 12.8, 12.9, 13.0"); a
/// requirement in NVIDIA's namespace met by nothing, or met only by versions
/// outside its range ("cuda-crt-12-9 = 12.9.99-1 (required by cuda-nvcc-12-9)
/// is not in the repository; it has 12.9.41-1, 12.9.86-1"); two versions of
/// one name needed at once; a chosen package whose checksum is not SHA-256.
Expected<Resolution> resolve(const Repository& repo, const ResolveRequest& req);

/// Reads filelists.xml only when it can change the resolution of `req`:
/// when resolve() (whether it succeeds or not) is left with file
/// requirements (names starting with '/') that no primary-listed file
/// meets, and the repository has filelists. It then calls load_filelists()
/// with every such path required by any package of req.arch or noarch in
/// the repository (not only the first resolution's), so a provider found
/// through filelists that itself requires an unlisted file is answered by
/// the same, single pass. Call resolve() afterwards. Returns what was done
/// (`needed` false, or `location` empty: nothing read, `repo` unchanged).
/// Errors: those of load_filelists().
Expected<FilelistsRead> read_filelists_if_needed(Repository& repo, const ResolveRequest& req,
                                                 uint64_t max_xml_bytes = kMaxFilelistsXml);

}  // namespace cuwheel::toolkit
