// cuwheel: release plumbing for a project that ships a core distribution
// and per-CUDA-major plugin distributions (e.g. `dyng`, `dyng-cu12`,
// `dyng-cu13`), each published through its own trusted-publishing
// environment.
//
//   policy   which distributions exist, since which version the plugins
//            ship, which wheels each must have, and the two package indexes
//            (TOML: [tool.cuwheel.release] of pyproject.toml, [release] of
//            cuwheel.toml; docs/release.md)
//   select   a git tag -> its version, the distributions it releases and
//            the indexes they go to (pre-releases to the test index only)
//   verify   a folder of built files -> exactly the expected release set
//            (the core's sdist and wheels, one wheel per plugin and
//            platform, no plugin sdist), names, versions, tags and
//            METADATA checked; every problem is a finding naming the file
//   split    the verified files -> one folder per distribution
//   plan     the publish order: on each index every plugin before the core,
//            the test index before production
//
// Format facts used here, with their sources:
//   * versions: PEP 440 (normalized form, section "Normalization"; pre,
//     post and dev releases; local labels, which PyPI refuses);
//   * distribution names: PEP 503 normalization (runs of `-_.` to `-`,
//     lowercase); file names use the normalized name with `-` replaced by
//     `_` (binary distribution format spec, "Escaping and Unicode"; PEP 625
//     for sdists: `{normalized_name}-{version}.tar.gz`);
//   * wheel file names and compressed tag sets: PEP 427 / PEP 425;
//   * METADATA Name, Version, Requires-Dist: core metadata spec, PEP 508.
//
// Nothing here prints or throws; the one function that writes (split_release)
// writes each output atomically and never modifies or moves an input.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cuwheel/base/diagnostic.h"
#include "cuwheel/base/expected.h"
#include "cuwheel/wheel/pep440.h"

namespace cuwheel::release {

// ---------------------------------------------------------------------------
// Policy

/// One package index a release is uploaded to.
struct Index {
  std::string name;            ///< e.g. "testpypi", "pypi" (reported in select/plan)
  std::string environment;     ///< CI environment of the core, e.g. "testpypi"
  std::string repository_url;  ///< upload endpoint, e.g. "https://upload.pypi.org/legacy/"
};

/// One plugin distribution.
struct Plugin {
  std::string name;  ///< as written in the policy, e.g. "dyng-cu12"
  /// Appended to an index's environment for this plugin's uploads
  /// ("testpypi" + "-" + "cu12"). Default: the PEP 503-normalized plugin
  /// name without the normalized core name and its `-` ("cu12"), or the
  /// whole normalized name when it does not start with the core's.
  std::string environment_suffix;
};

/// What a release consists of. Defaults are those of docs/release.md.
struct Policy {
  std::string source;  ///< the file it was read from ("" when built in code)
  uint32_t line = 0;   ///< line of the release table in `source` (0 when unknown)

  std::string core;              ///< the core distribution, e.g. "dyng"
  std::vector<Plugin> plugins;   ///< may be empty
  /// First release whose versions include the plugins, compared on epoch
  /// and release segments only (plugins_ship()), so "0.2" admits 0.2.0rc1.
  /// nullopt: the plugins ship with every version.
  std::optional<Version> plugins_since;
  /// Platform tags of the plugin wheels: exactly one wheel per plugin per
  /// platform (PEP 425 platform tag, e.g. "manylinux_2_28_x86_64").
  std::vector<std::string> platforms;
  /// "python-abi" every plugin wheel must carry (e.g. "cp312-abi3"); empty:
  /// not checked.
  std::string plugin_tag;
  /// The core's wheels, one per entry, each a full tag
  /// ("py3-none-any", "cp312-cp312-manylinux_2_28_x86_64"). A wheel fills
  /// an entry when its expanded tag set contains it.
  std::vector<std::string> core_wheels{"py3-none-any"};
  bool core_sdist = true;  ///< the core ships an sdist (plugins never do)
  /// Required prefix of release tags ("v" -> "v1.2.3"); "" for bare versions.
  std::string tag_prefix = "v";
  /// Number of release segments a tag's version must have (3: X.Y.Z);
  /// 0 accepts any number.
  uint32_t release_segments = 3;
  /// Folder under which `split` puts one folder per distribution, as the
  /// plan's `directory` names it (relative to the workflow's checkout).
  std::string dist_dir = "dist";
  Index test{"testpypi", "testpypi", "https://test.pypi.org/legacy/"};
  Index production{"pypi", "pypi", "https://upload.pypi.org/legacy/"};
};

/// Parses the release policy from TOML text. `source` names the file in
/// messages. The table read is, in order: [tool.cuwheel.release] (required
/// when `source` ends in "pyproject.toml"), else [release]. Errors, each "source:line: ...": TOML syntax; no release table;
/// an unknown key (with "did you mean" for a near spelling, e.g.
/// plugins_since -> plugins-since); a value of the wrong type; core missing
/// or not a valid project name (core metadata spec, "Name"); a plugin name
/// invalid, repeated, or equal to the core after PEP 503 normalization;
/// plugins without platforms; plugins-since not a PEP 440 version; a core
/// wheel that is not "python-abi-platform"; a platform or plugin-tag
/// that is not a tag; an index name, environment or repository-url, or
/// the dist-dir, that is not printable ASCII without spaces; two
/// indexes with the same name; a tag-prefix with characters other than
/// letters, `-`, `_`, `/` or `.`.
Expected<Policy> parse_policy(std::string_view toml_text, const std::string& source);

/// Reads and parses the policy file at `path` (parse_policy). Errors: the
/// file is missing, not a regular file, larger than 1 MiB, or unreadable.
Expected<Policy> load_policy(const std::string& path);

/// Looks for the release policy from the folder `start` upward: in each
/// folder, cuwheel.toml when it has a [release] table, then pyproject.toml
/// when it has [tool.cuwheel.release] (or mentions "tool.cuwheel.release"
/// but does not parse, so that the syntax error is reported). Returns the
/// path, or "" when none is found.
std::string find_policy_file(const std::string& start);

// ---------------------------------------------------------------------------
// Tags and selection

/// The kind of a release version (PEP 440 suffixes). A version that is both
/// a pre- and a dev release (1.0rc1.dev2) is kDev.
enum class ReleaseKind : uint8_t { kFinal, kPre, kPost, kDev };
std::string_view to_string(ReleaseKind kind);  ///< "final", "pre", "post", "dev"

/// A release tag, parsed.
struct TagInfo {
  std::string tag;      ///< as given
  Version version;      ///< parsed
  std::string version_text;  ///< normalized (equal to the tag without its prefix)
  ReleaseKind kind = ReleaseKind::kFinal;
  /// Pre-releases and dev releases go to the test index only; finals and
  /// post releases to both.
  bool to_production = false;
};

/// Parses a git tag under `policy`: tag-prefix, then a PEP 440 version
/// that must already be in normalized form, with release-segments
/// segments, and no local label. Errors (quoting the tag, with a hint
/// giving the accepted spelling where there is one): empty tag or
/// whitespace/control characters; missing prefix ("0.2.0" when "v" is
/// required -> "v0.2.0"), a refs/tags/ prefix; not a PEP 440 version; not
/// normalized ("v0.2.0-rc1" -> "v0.2.0rc1", "v1.0.0-1" -> "v1.0.0.post1",
/// "v1.0.0.RC1" -> "v1.0.0rc1"); a local label ("+cu12": PyPI refuses
/// local versions); a wrong number of release segments ("v1.0" -> "v1.0.0").
Expected<TagInfo> parse_tag(std::string_view tag, const Policy& policy);

/// Whether the plugins ship with `version`: no plugins-since, or the
/// version's epoch and release, padded with zeros, are at least those of
/// plugins-since (so 0.2.0rc1 and 0.2.0.dev1 ship the plugins when
/// plugins-since is 0.2, as the seed's PLUGINS_SINCE = (0, 2) on
/// (major, minor) does).
bool plugins_ship(const Policy& policy, const Version& version);

/// One distribution a tag releases.
struct Distribution {
  std::string name;         ///< as in the policy
  std::string normalized;   ///< PEP 503, e.g. "dyng-cu12"
  std::string file_prefix;  ///< file-name form, e.g. "dyng_cu12" (PEP 427/625)
  std::string environment_suffix;  ///< "" for the core, e.g. "cu12"
  bool core = false;
  std::string directory;    ///< "<dist-dir>/<normalized>", as split writes it
};

/// The result of `select`.
struct Selection {
  TagInfo tag;
  bool plugins = false;  ///< the plugins ship with this version
  /// Plugins first (policy order), then the core.
  std::vector<Distribution> distributions;
  /// The test index, then production when tag.to_production.
  std::vector<Index> indexes;
};

/// Selects what `tag` releases. Errors: those of parse_tag.
Expected<Selection> select(std::string_view tag, const Policy& policy);

/// The environment of `dist` on `index`: index.environment, plus "-" and
/// the environment suffix for a plugin ("testpypi-cu12").
std::string environment_for(const Index& index, const Distribution& dist);

/// `name` in file-name form: PEP 503-normalized, `-` replaced by `_`.
std::string file_prefix(std::string_view name);

// ---------------------------------------------------------------------------
// Verify

/// One expected file of a release set.
struct ExpectedFile {
  std::string distribution;  ///< normalized name
  std::string kind;          ///< "sdist" or "wheel"
  /// What the file must carry: "sdist", a core wheel's full tag, or a
  /// plugin wheel's platform tag.
  std::string slot;
  std::string example;       ///< a file name that fills it, e.g. "dyng_cu12-0.2.0-cp312-abi3-manylinux_2_28_x86_64.whl"
  std::string file;          ///< the file found for it ("" when missing)
};

/// One problem found by verify. `code` is a stable kebab-case name:
///   missing            an expected file is absent (file: the example name)
///   extra              a file that is not part of the release set
///   bad-filename       not a valid wheel (PEP 427) or sdist (PEP 625) name
///   not-normalized     name or version not in normalized file-name form
///   version-mismatch   file name or METADATA version is not the release's
///   name-mismatch      METADATA Name differs from the file name's
///   tag-mismatch       wrong python/abi/platform tag, or WHEEL Tag lines
///                      that differ from the file name's tags
///   duplicate          a second file for the same slot
///   core-pin           a plugin's Requires-Dist does not pin the core
///                      `==VERSION`, or the core's pins a plugin otherwise
///   bad-sdist          an sdist without `{name}-{version}/PKG-INFO`
///   unreadable         the file could not be read (bad zip or tar.gz, no
///                      METADATA/WHEEL)
///
/// A problem is the one diagnostic type (cuwheel/base/diagnostic.h):
/// `rule` is the code above (registered as release/<code> in
/// cuwheel/check/diagnostics.h), severity error, `path` the folder,
/// `member` the file name within it ("" for the folder itself).
using Finding = cuwheel::Diagnostic;

struct VerifyReport {
  Selection selection;
  std::vector<ExpectedFile> expected;  ///< in publish order
  std::vector<std::string> files;      ///< every entry of the folder, sorted
  std::vector<Finding> findings;       ///< sorted by member (file), then rule (code)
  bool ok() const { return findings.empty(); }
  /// True when some finding is `unreadable` (the CLI exits 2).
  bool any_unreadable() const;
  /// The distribution (normalized) a file belongs to, or "" when it is extra.
  std::string distribution_of(const std::string& file) const;
};

/// Checks that folder `dir` holds exactly the release set of `version`
/// (a version as parse_tag accepts it, with or without the policy's tag
/// prefix). Every entry of the folder is looked at (not recursively; a
/// sub-folder is an extra). Wheels are opened and their METADATA and WHEEL
/// read (read_wheel_summary); sdists are read with libarchive for their
/// PKG-INFO. Errors (not findings): `version` does not parse (parse_tag);
/// the folder cannot be listed. Everything about the files is a Finding.
Expected<VerifyReport> verify_release(const std::string& dir, std::string_view version,
                                      const Policy& policy);

// ---------------------------------------------------------------------------
// Split

/// What split did with one file.
struct SplitAction {
  std::string file;         ///< source file name
  std::string destination;  ///< path written
  bool linked = false;      ///< hard link (true) or copy (false)
};

/// Puts each file of `report` that belongs to a distribution into
/// `out/<normalized distribution>/`, creating folders as needed. A file is
/// hard-linked to a temporary name and renamed into place (link(2),
/// rename(2)); where linking fails (another file system, or `copy` is set)
/// it is copied with write_file_atomic. Inputs are never moved or changed;
/// an existing destination file of the same name is replaced. Files the
/// report does not assign (extras) are skipped. Before anything is written,
/// every destination folder is checked: one that exists must be a folder
/// holding only regular files of this release (a stale file of another
/// release, a folder where a file goes, or anything else, is an error naming
/// it, and nothing is written). Errors name the path: those checks; `out` is
/// `dir` or inside it (the input folder is never written to); `out` is an
/// existing non-folder; a folder cannot be created; a file cannot be read or
/// written. On an error after writing began, the files this call created
/// are removed again (files it replaced keep their new content).
Expected<std::vector<SplitAction>> split_release(const std::string& dir, const VerifyReport& report,
                                                 const std::string& out, bool copy = false);

// ---------------------------------------------------------------------------
// Plan

/// One upload: a distribution's folder to one index in one environment.
struct PlanStep {
  int step = 0;            ///< 1-based, in a valid serial order
  int stage = 0;           ///< steps of one stage may run in parallel; stage N+1 after N
  std::string id;          ///< "<index>-<normalized distribution>", unique
  std::string job;         ///< "test_plugins", "test_core", "production_plugins", "production_core"
  Index index;
  std::string environment;
  std::string distribution;  ///< normalized
  bool core = false;
  std::string directory;
  std::vector<std::string> needs;  ///< ids that must succeed first
};

/// The publish order of a selection: for each index (test, then production
/// when the tag goes there) the plugins, in parallel, then the core once
/// all of them succeeded; production starts once the core reached the test
/// index. Without plugins: the core on each index in turn.
std::vector<PlanStep> plan_release(const Selection& selection);

}  // namespace cuwheel::release
