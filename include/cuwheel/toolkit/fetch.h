// Getting a pinned CUDA toolkit onto a build machine: download the locked
// RPMs, verify them (again, offline), unpack them into a CUDA_HOME tree, and
// check that tree before a build starts. Users' view: docs/toolkit.md
// (sections download, verify, extract, check).
//
// Trust chain. The lock (cuwheel/toolkit/lock.h) pins each file's SHA-256
// and size, and the repository key's OpenPGP fingerprint. A file is
// accepted only when (1) its size and SHA-256 are the pinned ones, and, when
// the lock pins a fingerprint, (2) the key fetched from key_url has that
// fingerprint, (3) the RPM's header carries a good signature by that key
// and (4) the payload's SHA-256 is the one the signed header records
// (cuwheel/toolkit/rpm.h). Files that fail are never left under their final name.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "cuwheel/base/diagnostic.h"
#include "cuwheel/base/expected.h"
#include "cuwheel/toolkit/lock.h"

namespace cuwheel::toolkit {

/// What happened to one locked file.
struct FileOutcome {
  enum class Status {
    downloaded,    ///< fetched and verified
    reused,        ///< already in the folder with the pinned digest, verified
    verified,      ///< (verify) present and verified
    rejected,      ///< the bytes do not match the pin or the signature check failed
    unavailable,   ///< could not be fetched or read (HTTP error, missing file, I/O)
  };
  std::string file;             ///< file name in the folder (last component of `location`)
  Status status = Status::unavailable;
  std::string nevra;            ///< from the RPM header ("" when not read)
  bool signature_checked = false;
  std::string message;          ///< why rejected/unavailable; a note for a re-download ("" otherwise)
};

/// "downloaded", "reused", "verified", "rejected", "unavailable".
const char* to_string(FileOutcome::Status s);

/// One disagreement between a folder's SHA256SUMS and the lock.
/// The one diagnostic type (cuwheel/base/diagnostic.h): `rule` one of
/// sums-malformed-line, sums-listed-twice, sums-unknown-file,
/// sums-digest-mismatch, sums-missing-file (registered as toolkit/<rule>
/// in cuwheel/check/diagnostics.h), severity error, `path` the
/// SHA256SUMS file, `line` its 1-based line (unset for a locked file it
/// does not list), `member` the file name the line names ("" when the line
/// cannot be parsed), `message` "DIR/SHA256SUMS:3: ..." (names the path,
/// the line and the file).
using SumsProblem = cuwheel::Diagnostic;

/// What verify found in DIR/SHA256SUMS, the list download writes (and
/// extract reads).
struct SumsCheck {
  bool present = false;               ///< DIR/SHA256SUMS exists
  size_t lines = 0;                   ///< lines read (the last newline ends a line, it starts none)
  std::vector<SumsProblem> problems;  ///< in line order, then the locked files it does not list
};

/// Checks sha256sum(1) text (`text`, read from `path`, used in messages)
/// against the lock: each line must be "<64 hex digits><space><space or
/// '*'><name>" (GNU coreutils sha256sum, text or binary mode; the digest
/// in either case), name a file of the lock (its local_name) once, and give
/// that file's pinned SHA-256; and every locked file must be listed. A line
/// that cannot be parsed (including an empty line, a name with a '/', a
/// backslash-escaped name), a digest that differs from the pin, a name the
/// lock does not have, a name listed twice and a locked file not listed are
/// each one SumsProblem. Never fails.
SumsCheck check_sums(std::string_view text, const std::string& path, const LockedToolkit& tk);

/// The result of download or verify.
struct FetchReport {
  std::string toolkit;               ///< lock key ("cu12")
  std::string key_file;              ///< name of the stored key in the folder ("" = none)
  std::string key_fingerprint;       ///< the accepted fingerprint ("" = signatures not checked)
  std::vector<FileOutcome> files;    ///< in lock order
  bool sums_written = false;         ///< SHA256SUMS written (only when every file passed)
  /// Why the repository key was refused (its fingerprint is not the pinned
  /// one, or it is not a key); no file is checked then and ok() is false.
  std::string key_rejected;
  /// verify: DIR/SHA256SUMS against the lock (present == false when the
  /// folder has none; download leaves it unset).
  SumsCheck sums;
  /// Names in the folder that are none of the locked files, SHA256SUMS or
  /// the repository key file (last component of key_url), sorted by byte
  /// value: an extra RPM would be installed by `dnf install DIR/*.rpm`
  /// along with the locked ones, so each one fails the run. Never removed.
  std::vector<std::string> unlocked;

  /// True when every file was downloaded, reused or verified, SHA256SUMS,
  /// when present, agrees with the lock, and the folder holds no unlocked
  /// name.
  bool ok() const;
  /// True when the key, some file or a SHA256SUMS line was rejected, or the
  /// folder holds an unlocked name (a verification said no).
  bool any_rejected() const;
  /// Every problem of the report as diagnostics, for the renderers
  /// (cuwheel/render/report.h): key-rejected (path: the folder),
  /// rpm-rejected and rpm-unavailable (member: the file), unlocked-file
  /// (member: the name), then the SHA256SUMS problems as they are; all
  /// severity error, ids registered as toolkit/<rule>. `folder` is the
  /// download folder as the user gave it. Empty exactly when ok().
  std::vector<Diagnostic> diagnostics(const std::string& folder) const;
};

/// The names in folder `dir` that a download folder of `tk` may not hold:
/// every directory entry (file, folder, link, whatever its kind) other than
/// the locked files (local_name), "SHA256SUMS" and the repository key file
/// (the last component of key_url, when the lock has one), sorted by byte
/// value. Errors: `dir` cannot be listed (the message names it and the
/// errno text).
Expected<std::vector<std::string>> unlocked_entries(const LockedToolkit& tk, const std::string& dir);

/// Called before each file: (file name, index from 0, count).
using FetchProgress = std::function<void(const std::string&, size_t, size_t)>;

/// The name a locked file gets in a download folder: the last '/'-separated
/// component of `location`. Errors: empty, ".", "..", or a name with a NUL.
Expected<std::string> local_name(const LockedRpm& rpm);

/// `cuwheel toolkit download`. Creates `dest` if needed. When the toolkit
/// pins a key fingerprint and `signatures` is true, fetches `key_url`
/// (http_get, cuwheel/toolkit/http.h; 1 MiB at most), accepts it only with
/// the pinned fingerprint and stores it atomically as dest/<last component
/// of key_url>. Then for each locked RPM: a file already at dest/<name> is
/// reused only when its size, SHA-256 (and signature) are right; otherwise
/// it is removed (a message says so) and fetched again. A fetch goes to
/// dest/<name>.part.<pid>, is checked (size, SHA-256, header signature,
/// payload digest) and renamed to dest/<name> only then; a failure removes
/// it. Every file is attempted. Only when all pass is dest/SHA256SUMS
/// written (sha256sum(1) format: "<64 hex>  <name>\n", sorted by name,
/// atomically); otherwise a SHA256SUMS left by an earlier run is removed.
/// A name already in `dest` that is not locked (unlocked_entries, e.g. an
/// RPM of another release) is reported in `unlocked` and left alone; it
/// makes the run fail like a rejected file (no SHA256SUMS), since
/// `dnf install dest/*.rpm` would install it too.
/// A key that is not the pinned one is reported in `key_rejected` (no file
/// is fetched then). Errors (the whole run stops): `dest` cannot be
/// created, the key cannot be fetched, the lock pins a fingerprint but no
/// key_url, SHA256SUMS cannot be written.
Expected<FetchReport> download_toolkit(const LockedToolkit& tk, const std::string& dest,
                                       bool signatures = true, const FetchProgress& progress = {});

/// `cuwheel toolkit verify`: the checks of download, offline, on `dir`.
/// When dir/SHA256SUMS exists (download writes it, extract trusts it), it
/// must agree with the lock line by line (check_sums; report.sums), since
/// extract unpacks what that file lists. Sizes and SHA-256 always; with
/// `signatures`, the key is read from
/// dir/<last component of key_url> (as download stored it), must have the
/// pinned fingerprint, and every header signature and payload digest is
/// checked; a stored key that is not the pinned one is reported in
/// `key_rejected`. Every name in `dir` other than the locked files,
/// SHA256SUMS and the key file is reported in `unlocked` (a failure).
/// Errors (the whole run stops): `dir` is not a folder or cannot be listed,
/// dir/SHA256SUMS exists but cannot be read (a folder, no permission, over
/// 16 MiB), `signatures` requested but the lock pins no fingerprint, the
/// stored key cannot be read.
Expected<FetchReport> verify_toolkit(const LockedToolkit& tk, const std::string& dir, bool signatures);

/// What extract_toolkit did.
struct ExtractReport {
  std::string release;                   ///< "X.Y" of the /usr/local/cuda-X.Y/ prefix
  std::vector<std::string> packages;     ///< RPM file names, in SHA256SUMS order
  uint64_t files = 0, directories = 0, symlinks = 0, hardlinks = 0;
  std::vector<std::string> skipped;      ///< "<rpm>: <member>" outside the toolkit prefix (not extracted)
};

/// `cuwheel toolkit extract`: unpacks the RPMs listed in dir/SHA256SUMS (each
/// digest checked first) into `prefix`, with libarchive (its RPM filter and
/// cpio reader; no rpm, no root). Mapping: a member
/// "/usr/local/cuda-X.Y/<rest>" (where NVIDIA's RPMs install) becomes
/// "<prefix>/<rest>", so `prefix` is a CUDA_HOME; members elsewhere (e.g.
/// /etc/profile.d/, /etc/ld.so.conf.d/) are skipped and reported; ancestors
/// of the prefix (/usr, /usr/local) are ignored. Owners are not restored;
/// set-id bits are dropped. Symbolic links: an absolute target inside
/// /usr/local/cuda-X.Y/ is rewritten relative to the link's folder; an
/// absolute target elsewhere, or a relative one that leaves the tree, is an
/// error. Member names that are absolute after the mapping or contain ".."
/// are refused (and libarchive's ARCHIVE_EXTRACT_SECURE_* checks apply).
/// The tree is built in "<prefix>.part.<pid>" and renamed to `prefix` at
/// the end, so a failed extraction leaves no partial CUDA_HOME.
/// `release` ("X.Y", or "" to take it from the first package) must match
/// every package's prefix. Errors: `prefix` exists and is not an empty
/// folder, SHA256SUMS missing or malformed, a digest mismatch, an RPM
/// libarchive cannot read, a refused member or link (naming the RPM and
/// the member), packages of two releases, file-system failures.
Expected<ExtractReport> extract_toolkit(const std::string& dir, const std::string& prefix,
                                        const std::string& release = "");

/// Options of check_toolkit.
struct CheckOptions {
  std::string release;         ///< pinned "X.Y"
  std::string host_compiler;   ///< passed to nvcc as -ccbin ("" = nvcc's default)
  int timeout_s = 600;         ///< per command; a command still running is killed
};

/// One step of check_toolkit.
struct CheckStep {
  std::string name;       ///< "nvcc-release", "eula", "compile"
  bool ok = false;
  std::string message;    ///< one line; for a failure, what was found vs expected
  std::string output;     ///< the command's combined output (for compile), "" otherwise
};

/// The result of check_toolkit.
struct CheckReport {
  std::string nvcc_release;  ///< "X.Y" parsed from nvcc --version ("" if not)
  std::string nvcc_version;  ///< "X.Y.Z" parsed from "V..." ("" if not)
  std::vector<CheckStep> steps;
  bool ok() const;
  /// Each failed step that was attempted as a diagnostic (rule: the step's name, registered
  /// as toolkit/<name>; severity error; path: `prefix`, the toolkit root
  /// as the user gave it), in step order.
  std::vector<Diagnostic> diagnostics(const std::string& prefix) const;
};

/// Parses the release and version from `nvcc --version` output
/// ("Cuda compilation tools, release 12.9, V12.9.86"). Returns false when
/// the line is absent.
bool parse_nvcc_version(const std::string& text, std::string& release, std::string& version);

/// `cuwheel toolkit check`, the before-build check: (1) prefix/bin/nvcc
/// --version reports release `opts.release` and a version of the same
/// major; (2) prefix/EULA.txt exists; (3) a small kernel with a host main
/// compiles and links against the static runtime in a temporary folder:
/// `prefix/bin/nvcc [-ccbin HOST] -cudart static -o t t.cu`. Steps after a
/// failed nvcc step are still run when they can be (the EULA). Errors only
/// for a bad `opts.release` or when no temporary folder can be created; a
/// failing step is a CheckStep with ok == false.
Expected<CheckReport> check_toolkit(const std::string& prefix, const CheckOptions& opts);

}  // namespace cuwheel::toolkit
