// cuwheel: running a command where the NVIDIA driver cannot be loaded.
//
// `cuwheel run --hide-driver -- CMD` tests the CPU fallback of a CUDA wheel
// on a machine that has a GPU: CMD runs in a new user and mount namespace
// (user_namespaces(7), mount_namespaces(7)) in which every driver user-space
// library the dynamic loader could find is covered by an empty read-only
// file and every /dev/nvidia* node is covered too, so
// dlopen("libcuda.so.1") fails as it does on a machine without a driver.
//
// Two halves:
//   1. Discovery (plan_hide_driver): pure file-system reading under a root
//      prefix, so tests run it on a fake tree. It reads the loader's search
//      inputs the way ld.so(8) does: the ld.so.cache, the folders
//      ld.so.conf names, the trusted folders, LD_LIBRARY_PATH, plus the
//      folders NVIDIA's container runtime and WSL put the driver in; every
//      file whose name is a driver library (classify_soname, libclass.h:
//      cuda-facts.md section 5, libnvidia-container's nvc_info.c) is
//      resolved through its symlinks to the file that holds the bytes.
//      Files are covered where they are, not by name, so a library reached
//      through an absolute RUNPATH or a symlink is covered too.
//   2. The runner (run_with_driver_hidden): fork; the child unshares,
//      covers the plan's files with bind mounts and execs CMD; the parent
//      waits and returns CMD's status.
//
// What is not hidden: libraries in folders the loader is not told about
// (a program's own $ORIGIN RUNPATH into a copy of libcuda, a driver copy
// inside a wheel), which no search can know; `--also` covers such files.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cuwheel/base/bytes.h"
#include "cuwheel/base/expected.h"
#include "cuwheel/host/ldcache.h"

namespace cuwheel {

// ---------------------------------------------------------------------------
// Discovery

/// Where discovery looks. Every absolute path below is read under `root`
/// (symlinks are resolved as if `root` were "/", like chroot(2)).
struct HideDriverInputs {
  /// The tree to read; "/" on a real run, a temporary folder in tests.
  std::string root = "/";
  /// The value of LD_LIBRARY_PATH the command will run with (ld.so(8):
  /// entries separated by ':' or ';'; empty entries, meaning the current
  /// folder, are skipped). Relative entries are read against `cwd`.
  std::string ld_library_path;
  /// The current folder, for relative LD_LIBRARY_PATH entries ("" = skip them).
  std::string cwd;
  /// Extra files or folders to cover (`--also`), absolute or relative to cwd.
  std::vector<std::string> also;
  /// Read /etc/ld.so.cache (true) or only the folders (false).
  bool use_cache = true;
};

/// What a covered path is, which decides what covers it.
enum class HideKind {
  library,    ///< a driver library file: an empty read-only regular file
  device,     ///< a /dev/nvidia* node: an empty regular file with mode 0
  directory,  ///< /dev/nvidia-caps, /proc/driver/nvidia: an empty read-only folder
  file,       ///< an `--also` file that is not a driver library name
};

/// "library", "device", "directory", "file".
const char* to_string(HideKind kind);

/// One path to cover.
struct HideTarget {
  HideKind kind = HideKind::library;
  /// The path to cover, symlinks resolved (inside root, without the root
  /// prefix): "/usr/lib/x86_64-linux-gnu/libcuda.so.570.86.10".
  std::string path;
  /// How the loader reaches it, in discovery order, deduplicated:
  /// "ld.so.cache: libcuda.so.1", "/usr/lib/x86_64-linux-gnu/libcuda.so.1",
  /// "LD_LIBRARY_PATH: /opt/x/libcuda.so.1", "--also".
  std::vector<std::string> via;
};

/// Everything to cover, and what was searched.
struct HidePlan {
  std::vector<HideTarget> targets;  ///< libraries first, then devices, folders
  std::vector<std::string> searched;  ///< folders read, in order ("/lib/x86_64-linux-gnu")
  std::string ld_so_cache;            ///< "/etc/ld.so.cache" when read, else ""
  size_t ld_so_cache_entries = 0;     ///< entries in it
};

/// The standard ("trusted") folders ld.so searches after the cache, for the
/// architectures cuwheel knows (ld.so(8), glibc sysdeps/unix/sysv/linux/
/// */dl-cache.h and Debian's multiarch tuples), plus the folders NVIDIA's
/// container runtime (/usr/local/nvidia/lib{,64}) and WSL (/usr/lib/wsl/lib)
/// put the driver in. Absolute, without a root prefix.
std::vector<std::string> standard_library_folders();

/// Reads an ld.so.conf file: one folder per line, '#' comments,
/// "include GLOB" lines (relative globs are relative to the including
/// file's folder, as ldconfig's parse_conf_include does), "hwcap" lines
/// ignored. Included files are read recursively (depth 16). Paths are
/// read under `root`; the result is absolute without the prefix. A missing
/// or unreadable file is reported to `warnings` and yields nothing.
std::vector<std::string> read_ld_so_conf(const std::string& root, const std::string& conf,
                                         WarningSink& warnings);

/// Lists what to cover: every driver library (LibraryKind::nvidia_driver)
/// named in the ld.so.cache, in the ld.so.conf folders, the standard
/// folders and LD_LIBRARY_PATH, with symlinks resolved and duplicates
/// merged; every /dev entry whose name starts with "nvidia" (nvidia0..N,
/// nvidiactl, nvidia-uvm, nvidia-uvm-tools, nvidia-modeset, nvidia-caps/,
/// nvidia-nvswitch*, ...); /proc/driver/nvidia; and `also`. Each folder's
/// glibc-hwcaps/* subfolders are read too (glibc 2.33+).
/// Problems that do not stop discovery (a corrupt cache, an unreadable
/// folder, a dangling symlink) go to `warnings`; a missing folder is
/// normal and silent. Errors: an `also` path that does not exist, or a
/// root that is not a folder.
Expected<HidePlan> plan_hide_driver(const HideDriverInputs& inputs, WarningSink& warnings);

/// Resolves `path` (absolute, inside `root`) through every symlink, with
/// `root` acting as "/": "..", absolute link targets and loops (40 links,
/// as the kernel's MAXSYMLINKS) are handled. Returns the resolved path
/// without the prefix. Errors: a missing component, a loop.
Expected<std::string> resolve_in_root(const std::string& root, const std::string& path);

// ---------------------------------------------------------------------------
// Running

/// Exit statuses of run_with_driver_hidden, as a POSIX shell and GNU env(1)
/// report them.
inline constexpr int kExitCannotExecute = 126;  ///< CMD found but not executable
inline constexpr int kExitNotFound = 127;       ///< CMD not found

/// How CMD ended.
struct RunOutcome {
  /// CMD's exit status; 128 + N when signal N ended it; 127 / 126 when it
  /// could not be executed.
  int status = 0;
  /// When CMD could not be executed: "CMD: No such file or directory".
  std::string exec_error;
  /// When a signal ended CMD: its number, else 0.
  int signal = 0;
};

/// Runs `argv` (argv[0] found through PATH, as execvp(3)) with the plan's
/// targets covered, in a child process in a new user and mount namespace:
///   unshare(CLONE_NEWUSER | CLONE_NEWNS); /proc/self/setgroups "deny";
///   uid_map and gid_map map the caller's uid and gid to themselves (so CMD
///   runs as the same user; root stays root); mount propagation of "/" made
///   private (MS_REC | MS_PRIVATE) so nothing leaks back to the host; each
///   target opened with O_PATH; a small tmpfs mounted over a scratch folder
///   (/tmp, else /mnt, /var/tmp, /run) holds the empty files, remounted
///   read-only; each target covered with a bind mount (through
///   /proc/self/fd, so targets under the scratch folder work); the tmpfs
///   detached again (MNT_DETACH), leaving the scratch folder as it was.
///   Then CMD is executed with the caller's environment and folder.
/// With no targets (a machine without a driver) no namespace is made and
/// CMD is simply executed, so the same command works where namespaces are
/// not permitted and there is nothing to hide.
/// The parent ignores SIGINT and SIGQUIT while CMD runs (the terminal sends
/// them to CMD, as system(3) does) and passes SIGTERM and SIGHUP on to it.
/// The caller must be single-threaded (unshare(2) refuses CLONE_NEWUSER in
/// a multi-threaded process).
/// Errors (nothing has been run): argv empty; fork or pipe failed; a
/// namespace could not be made (the message names the cause:
/// user.max_user_namespaces, kernel.unprivileged_userns_clone,
/// kernel.apparmor_restrict_unprivileged_userns, a container's seccomp
/// profile); a target could not be opened or covered (naming it).
Expected<RunOutcome> run_with_driver_hidden(const HidePlan& plan,
                                            const std::vector<std::string>& argv);

/// The explanation for a failed step of namespace set-up. `step` is the
/// call ("unshare", "uid_map", "mount"), `err` its errno, `privileged`
/// whether the caller is root (the two "unprivileged" sysctls do not apply
/// to root); `root` is where /proc/sys is read ("/" normally). Reads the
/// sysctls that decide it (user.max_user_namespaces,
/// kernel.unprivileged_userns_clone, kernel.apparmor_restrict_unprivileged_userns)
/// and names the one set; otherwise names the likely cause (a container's
/// seccomp profile for EPERM, the namespace limit for ENOSPC).
std::string explain_namespace_failure(const std::string& step, int err, bool privileged,
                                      const std::string& root = "/");

}  // namespace cuwheel
