// Discovery of the driver's user-space files and the namespace runner that
// covers them (hide_driver.h). Facts used here and their sources:
//   - the loader's search order and folders: ld.so(8), glibc elf/dl-load.c
//     (_dl_map_object: LD_LIBRARY_PATH, then the cache, then the trusted
//     folders), glibc elf/ldconfig.c (ld.so.conf syntax, include globs)
//   - which names are the driver's: libclass.h (cuda-facts.md section 5,
//     libnvidia-container src/nvc_info.c)
//   - the device nodes: libnvidia-container src/nvc_info.c and the driver's
//     README ("nvidia-modprobe", /dev/nvidia-caps, /dev/nvidia-uvm)
//   - the namespace calls: user_namespaces(7) (uid_map, setgroups),
//     mount_namespaces(7) (MS_PRIVATE), mount(2) (MS_BIND, MS_REMOUNT),
//     umount(2) (MNT_DETACH), open(2) (O_PATH)
#include <dirent.h>
#include <fcntl.h>
#include <glob.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <deque>
#include <map>
#include <optional>
#include <set>

#include "cuwheel/base/fileio.h"
#include "cuwheel/host/hide_driver.h"
#include "cuwheel/cuda/libclass.h"

namespace cuwheel {

const char* to_string(HideKind kind) {
  switch (kind) {
    case HideKind::library: return "library";
    case HideKind::device: return "device";
    case HideKind::directory: return "directory";
    case HideKind::file: return "file";
  }
  return "file";
}

namespace {

std::string strip_root(std::string root) {
  while (!root.empty() && root.back() == '/') root.pop_back();
  return root;  // "" for "/"
}

std::vector<std::string> split_path(const std::string& p) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i <= p.size()) {
    size_t j = p.find('/', i);
    if (j == std::string::npos) j = p.size();
    if (j > i) out.push_back(p.substr(i, j - i));
    i = j + 1;
  }
  return out;
}

std::string parent_of(const std::string& p) {
  size_t s = p.rfind('/');
  if (s == std::string::npos || s == 0) return "/";
  return p.substr(0, s);
}

std::string join_path(const std::string& dir, const std::string& name) {
  if (dir.empty() || dir == "/") return "/" + name;
  return dir + "/" + name;
}

// Reads a /proc/sys value: proc(5) files report size 0, so read to EOF.
std::string read_small(const std::string& path) {
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  std::string s;
  char buf[256];
  ssize_t n;
  while (s.size() < 4096 && ((n = read(fd, buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR)))
    if (n > 0) s.append(buf, static_cast<size_t>(n));
  close(fd);
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

constexpr int kMaxSymlinks = 40;  // the kernel's MAXSYMLINKS
constexpr int kMaxConfDepth = 16;

}  // namespace

Expected<std::string> resolve_in_root(const std::string& root_in, const std::string& path) {
  const std::string root = strip_root(root_in);
  if (path.empty() || path[0] != '/') return Error(path + ": not an absolute path");
  std::deque<std::string> todo;
  for (auto& c : split_path(path)) todo.push_back(c);
  std::string resolved;  // "" is "/"
  int links = 0;
  while (!todo.empty()) {
    std::string c = std::move(todo.front());
    todo.pop_front();
    if (c == ".") continue;
    if (c == "..") {
      size_t s = resolved.rfind('/');
      resolved = s == std::string::npos ? "" : resolved.substr(0, s);
      continue;
    }
    std::string cand = resolved + "/" + c;
    struct stat st {};
    if (lstat((root + cand).c_str(), &st) != 0)
      return Error(path + ": " + cand + ": " + std::strerror(errno));
    if (S_ISLNK(st.st_mode)) {
      if (++links > kMaxSymlinks) return Error(path + ": too many levels of symbolic links");
      char buf[4096];
      ssize_t n = readlink((root + cand).c_str(), buf, sizeof buf);
      if (n < 0) return Error(path + ": " + cand + ": readlink: " + std::strerror(errno));
      std::string target(buf, static_cast<size_t>(n));
      if (!target.empty() && target[0] == '/') resolved.clear();
      std::vector<std::string> parts = split_path(target);
      for (auto it = parts.rbegin(); it != parts.rend(); ++it) todo.push_front(*it);
      continue;
    }
    if (!todo.empty() && !S_ISDIR(st.st_mode)) return Error(path + ": " + cand + ": not a folder");
    resolved = std::move(cand);
  }
  return resolved.empty() ? std::string("/") : resolved;
}

std::vector<std::string> standard_library_folders() {
  // glibc's trusted folders (SYSTEM_DIRS) are /lib, /usr/lib and their
  // 64-bit (lib64) or multiarch (Debian: lib/<tuple>) forms; ldconfig adds
  // them to the cache as well. 32-bit folders hold the 32-bit driver.
  std::vector<std::string> out = {"/lib", "/usr/lib", "/lib64", "/usr/lib64", "/lib32", "/usr/lib32"};
  for (const char* tuple : {"x86_64-linux-gnu", "aarch64-linux-gnu", "i386-linux-gnu", "powerpc64le-linux-gnu"}) {
    out.push_back(std::string("/lib/") + tuple);
    out.push_back(std::string("/usr/lib/") + tuple);
  }
  out.push_back("/usr/local/lib");
  // NVIDIA's container runtime (nvidia-docker's images set
  // LD_LIBRARY_PATH=/usr/local/nvidia/lib:/usr/local/nvidia/lib64) and WSL 2.
  out.push_back("/usr/local/nvidia/lib");
  out.push_back("/usr/local/nvidia/lib64");
  out.push_back("/usr/lib/wsl/lib");
  return out;
}

namespace {

void read_conf_into(const std::string& root, const std::string& conf, WarningSink& warnings, int depth,
                    std::vector<std::string>& out) {
  if (depth > kMaxConfDepth) {
    warnings.warn(conf + ": include nesting deeper than " + std::to_string(kMaxConfDepth) + "; not read");
    return;
  }
  auto text = read_whole_file(root + conf, 1 << 20);
  if (!text) {
    warnings.warn(text.error().message());
    return;
  }
  size_t pos = 0;
  int line_no = 0;
  while (pos < text->size()) {
    size_t nl = text->find('\n', pos);
    if (nl == std::string::npos) nl = text->size();
    std::string line = text->substr(pos, nl - pos);
    pos = nl + 1;
    ++line_no;
    if (size_t hash = line.find('#'); hash != std::string::npos) line.resize(hash);
    auto is_space = [](char ch) { return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\f' || ch == '\v'; };
    while (!line.empty() && is_space(line.back())) line.pop_back();
    size_t b = 0;
    while (b < line.size() && is_space(line[b])) ++b;
    line.erase(0, b);
    if (line.empty()) continue;
    auto keyword = [&](const char* kw) {
      size_t n = std::strlen(kw);
      return line.compare(0, n, kw) == 0 && line.size() > n && is_space(line[n]);
    };
    if (keyword("hwcap")) continue;  // ldconfig ignores hwcap lines since glibc 2.26
    if (keyword("include")) {
      std::string rest = line.substr(7);
      size_t i = 0;
      while (i < rest.size()) {
        while (i < rest.size() && is_space(rest[i])) ++i;
        size_t j = i;
        while (j < rest.size() && !is_space(rest[j])) ++j;
        if (j > i) {
          std::string pattern = rest.substr(i, j - i);
          if (pattern[0] != '/') pattern = join_path(parent_of(conf), pattern);
          glob_t g{};
          int rc = glob((root + pattern).c_str(), 0, nullptr, &g);
          if (rc == 0) {
            std::vector<std::string> files(g.gl_pathv, g.gl_pathv + g.gl_pathc);
            std::sort(files.begin(), files.end());
            for (const auto& f : files) read_conf_into(root, f.substr(root.size()), warnings, depth + 1, out);
          } else if (rc != GLOB_NOMATCH) {
            warnings.warn(conf + ":" + std::to_string(line_no) + ": include " + pattern + ": cannot be expanded");
          }
          globfree(&g);
        }
        i = j;
      }
      continue;
    }
    // Old ldconfig syntax "DIR=TYPE" (libc5/libc6 type hint): the folder is before '='.
    if (size_t eq = line.find('='); eq != std::string::npos) line.resize(eq);
    if (line[0] != '/') {
      warnings.warn(conf + ":" + std::to_string(line_no) + ": \"" + line + "\" is not an absolute folder; ignored");
      continue;
    }
    out.push_back(line);
  }
}

// Collects targets, merging the ways one file is reached.
class Collector {
 public:
  Collector(std::string root, WarningSink& warnings) : root_(std::move(root)), warnings_(warnings) {}

  void add(HideKind kind, const std::string& resolved, const std::string& via) {
    auto it = index_.find(resolved);
    if (it == index_.end()) {
      index_.emplace(resolved, plan_.targets.size());
      plan_.targets.push_back({kind, resolved, {via}});
      return;
    }
    auto& v = plan_.targets[it->second].via;
    if (std::find(v.begin(), v.end(), via) == v.end()) v.push_back(via);
  }

  // A path the loader may open for a driver library (from the cache, a
  // folder listing): resolved and added when it is a regular file.
  void add_library(const std::string& path, const std::string& via) {
    auto r = resolve_in_root(root_, path);
    if (!r) {
      warnings_.warn("driver library " + r.error().message() + " (dangling; nothing to cover)");
      return;
    }
    struct stat st {};
    if (stat((root_ + *r).c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;
    add(HideKind::library, *r, via);
  }

  // Lists one folder's driver libraries; `label` says why it is searched.
  void scan_folder(const std::string& dir, const std::string& label) {
    auto real = resolve_in_root(root_, dir);
    if (!real) return;  // a folder that does not exist is normal
    if (!scanned_.insert(*real).second) return;
    DIR* d = opendir((root_ + *real).c_str());
    if (!d) {
      if (errno != ENOENT && errno != ENOTDIR) warnings_.warn(dir + ": cannot be read: " + std::strerror(errno));
      return;
    }
    // Shown by its real path: on a merged-/usr system /lib/x86_64-linux-gnu
    // and /usr/lib/x86_64-linux-gnu are one folder, read once.
    const std::string shown = *real;
    plan_.searched.push_back(shown);
    std::vector<std::string> names;
    bool hwcaps = false;
    while (dirent* e = readdir(d)) {
      std::string name = e->d_name;
      if (name == "glibc-hwcaps") hwcaps = true;
      if (classify_soname(name).kind == LibraryKind::nvidia_driver) names.push_back(name);
    }
    closedir(d);
    std::sort(names.begin(), names.end());
    for (const auto& n : names) {
      std::string p = join_path(shown, n);
      add_library(p, label.empty() ? p : label + ": " + p);
    }
    if (hwcaps) {
      // glibc 2.33+: <dir>/glibc-hwcaps/<level>/ is searched before <dir>.
      std::string hw = join_path(shown, "glibc-hwcaps");
      if (DIR* h = opendir((root_ + *real + "/glibc-hwcaps").c_str())) {
        std::vector<std::string> levels;
        while (dirent* e = readdir(h))
          if (e->d_name[0] != '.') levels.push_back(e->d_name);
        closedir(h);
        std::sort(levels.begin(), levels.end());
        for (const auto& l : levels) scan_folder(join_path(hw, l), label);
      }
    }
  }

  HidePlan& plan() { return plan_; }

 private:
  std::string root_;
  WarningSink& warnings_;
  HidePlan plan_;
  std::map<std::string, size_t> index_;
  std::set<std::string> scanned_;
};

bool is_dir(const std::string& p) {
  struct stat st {};
  return stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

std::vector<std::string> read_ld_so_conf(const std::string& root, const std::string& conf, WarningSink& warnings) {
  std::vector<std::string> out;
  read_conf_into(strip_root(root), conf, warnings, 0, out);
  return out;
}

namespace {

// Device files every program may use (the POSIX "/dev/null", "/dev/tty"
// and the Linux random and zero devices; devices(7)/null(4)/random(4)),
// and the folder holding them: covering one would break CMD (a shell's
// `> /dev/null` fails on a mode-0 file), never hide the driver.
constexpr std::string_view kSystemPaths[] = {"/dev", "/dev/null", "/dev/zero", "/dev/full", "/dev/random",
                                             "/dev/urandom", "/dev/tty", "/dev/console", "/dev/ptmx"};

// Why an --also path must not be covered, or nullopt. `given` is the path
// as written, `abs` absolute, `resolved` with symlinks resolved (both
// without the root prefix). --also is for extra driver files: a character
// or block device other than /dev/nvidia* is refused, and so is a system
// path whatever it is inside a test tree.
std::optional<std::string> refuse_also(const std::string& root, const std::string& given, const std::string& abs,
                                       const std::string& resolved) {
  for (std::string_view sys : kSystemPaths)
    if (abs == sys || resolved == sys)
      return "--also " + given + ": " + std::string(sys) +
             (sys == "/dev" ? " is the device folder; covering it would hide /dev/null and every other device CMD uses"
                            : " is a system device every program may use; covering it would break CMD (nothing could "
                              "write to or read from it)") +
             ". --also is for extra NVIDIA driver files";
  struct stat st {};
  if (stat((root.empty() ? resolved : root + resolved).c_str(), &st) != 0) return std::nullopt;
  if (!S_ISCHR(st.st_mode) && !S_ISBLK(st.st_mode)) return std::nullopt;
  if (resolved.rfind("/dev/nvidia", 0) == 0) return std::nullopt;
  return "--also " + given + (resolved != abs ? " (" + resolved + ")" : "") + ": a " +
         (S_ISCHR(st.st_mode) ? "character" : "block") +
         " device that is not an NVIDIA one (/dev/nvidia*); covering it would take it away from CMD. --also is for "
         "extra NVIDIA driver files";
}

}  // namespace

Expected<HidePlan> plan_hide_driver(const HideDriverInputs& in, WarningSink& warnings) {
  const std::string root = strip_root(in.root);
  if (!is_dir(root.empty() ? "/" : root)) return Error(in.root + ": not a folder");
  Collector c(root, warnings);

  // 1. LD_LIBRARY_PATH, searched first by ld.so (after DT_RPATH).
  {
    size_t i = 0;
    const std::string& v = in.ld_library_path;
    while (i <= v.size()) {
      size_t j = v.find_first_of(":;", i);
      if (j == std::string::npos) j = v.size();
      std::string dir = v.substr(i, j - i);
      i = j + 1;
      if (dir.empty()) continue;
      if (dir.find('$') != std::string::npos) {
        warnings.warn("LD_LIBRARY_PATH entry \"" + dir + "\" uses a dynamic string token ($ORIGIN, $LIB, $PLATFORM); not searched");
        continue;
      }
      if (dir[0] != '/') {
        if (in.cwd.empty()) continue;
        dir = join_path(in.cwd, dir);
      }
      c.scan_folder(dir, "LD_LIBRARY_PATH");
    }
  }

  // 2. The cache: every entry whose soname is the driver's.
  if (in.use_cache) {
    const std::string cache = "/etc/ld.so.cache";
    auto bytes = read_whole_file(root + cache, 256u << 20);
    if (bytes) {
      ByteView v(reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size());
      auto entries = parse_ld_so_cache(v, cache);
      if (!entries) {
        warnings.warn(entries.error().message() + " (the folders are still searched)");
      } else {
        c.plan().ld_so_cache = cache;
        c.plan().ld_so_cache_entries = entries->size();
        for (const auto& e : *entries)
          if (classify_soname(e.soname).kind == LibraryKind::nvidia_driver && !e.path.empty() && e.path[0] == '/')
            c.add_library(e.path, "ld.so.cache: " + e.soname);
      }
    } else {
      struct stat st {};
      if (lstat((root + cache).c_str(), &st) == 0) warnings.warn(bytes.error().message());
    }
  }

  // 3. The folders ld.so.conf names (what ldconfig puts in the cache; read
  // directly too, in case the cache is stale), then the trusted folders.
  struct stat conf_st {};
  if (lstat((root + "/etc/ld.so.conf").c_str(), &conf_st) == 0)
    for (const auto& dir : read_ld_so_conf(in.root, "/etc/ld.so.conf", warnings)) c.scan_folder(dir, "ld.so.conf");
  for (const auto& dir : standard_library_folders()) c.scan_folder(dir, "");

  // 4. Device nodes and the driver's /proc folder.
  {
    std::vector<std::string> names;
    if (DIR* d = opendir((root + "/dev").c_str())) {
      while (dirent* e = readdir(d))
        if (std::strncmp(e->d_name, "nvidia", 6) == 0) names.push_back(e->d_name);
      closedir(d);
    }
    std::sort(names.begin(), names.end());
    for (const auto& n : names) {
      auto r = resolve_in_root(root, "/dev/" + n);
      if (!r) {
        warnings.warn(r.error().message());
        continue;
      }
      c.add(is_dir(root + *r) ? HideKind::directory : HideKind::device, *r, "/dev/" + n);
    }
    if (is_dir(root + "/proc/driver/nvidia")) c.add(HideKind::directory, "/proc/driver/nvidia", "/proc/driver/nvidia");
  }

  // 5. --also.
  for (const auto& a : in.also) {
    std::string p = a;
    if (p.empty()) return Error("--also: empty path");
    if (p[0] != '/') {
      if (in.cwd.empty()) return Error(a + ": relative path without a current folder");
      p = join_path(in.cwd, p);
    }
    auto r = resolve_in_root(root, p);
    if (!r) return Error("--also " + r.error().message());
    // Covering "/" would hide the command itself (and mounting over the
    // root of the namespace is not what a bind mount does): refuse it
    // rather than report a plan the run cannot carry out.
    if (*r == "/" || r->empty()) return Error("--also " + a + ": cannot cover the root folder");
    if (auto why = refuse_also(root, a, p, *r)) return Error(*why);
    struct stat st {};
    bool nvidia_node = stat((root.empty() ? *r : root + *r).c_str(), &st) == 0 &&
                       (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode));
    HideKind kind = is_dir(root + *r)                                         ? HideKind::directory
                    : nvidia_node                                             ? HideKind::device
                    : classify_soname(*r).kind == LibraryKind::nvidia_driver ? HideKind::library
                                                                              : HideKind::file;
    c.add(kind, *r, "--also");
  }

  HidePlan plan = std::move(c.plan());
  std::stable_sort(plan.targets.begin(), plan.targets.end(), [](const HideTarget& x, const HideTarget& y) {
    if (x.kind != y.kind) return static_cast<int>(x.kind) < static_cast<int>(y.kind);
    return x.path < y.path;
  });
  return plan;
}

// ---------------------------------------------------------------------------
// Running

std::string explain_namespace_failure(const std::string& step, int err, bool privileged,
                                      const std::string& root_in) {
  const std::string root = strip_root(root_in);
  const std::string max_ns = read_small(root + "/proc/sys/user/max_user_namespaces");
  const std::string clone = read_small(root + "/proc/sys/kernel/unprivileged_userns_clone");
  const std::string apparmor = read_small(root + "/proc/sys/kernel/apparmor_restrict_unprivileged_userns");
  if (max_ns == "0")
    return "user namespaces are disabled: user.max_user_namespaces is 0 "
           "(enable them with: sysctl -w user.max_user_namespaces=15000)";
  if (step == "unshare" && err == ENOSPC)
    return "the limit on user namespaces is reached (user.max_user_namespaces is " +
           (max_ns.empty() ? std::string("unknown") : max_ns) + " here; an enclosing namespace may set a lower one)";
  if (step == "unshare" && err == EUSERS) return "user namespaces nest at most 32 deep, and this process is that deep";
  if (clone == "0" && !privileged)
    return "unprivileged user namespaces are disabled: kernel.unprivileged_userns_clone is 0 "
           "(enable them with: sysctl -w kernel.unprivileged_userns_clone=1)";
  if (apparmor == "1" && !privileged)
    return "AppArmor restricts unprivileged user namespaces: kernel.apparmor_restrict_unprivileged_userns is 1 "
           "(Ubuntu 23.10 and later); allow `userns` in an AppArmor profile for cuwheel, or "
           "sysctl -w kernel.apparmor_restrict_unprivileged_userns=0";
  if (err == EPERM || err == EACCES)
    return "not permitted here; inside a container the seccomp profile usually forbids unshare(2) and mount(2) "
           "(Docker's default profile does for containers without CAP_SYS_ADMIN: run the container with "
           "--security-opt seccomp=unconfined or a profile that allows them), and unshare(CLONE_NEWUSER) is "
           "refused in a chroot";
  if (step == "unshare" && err == EINVAL) return "the kernel has no user namespaces (CONFIG_USER_NS), or the process is multi-threaded";
  return std::strerror(err);
}

namespace {

enum Step : int32_t {
  kUnshare = 1,
  kSetgroups,
  kUidMap,
  kGidMap,
  kPrivate,
  kOpenTarget,
  kScratch,
  kScratchFile,
  kScratchRemount,
  kBind,
  kDetach,
  kExec,
  kNoScratch,  // every scratch folder is hidden itself
};

// What the child sends back through the close-on-exec pipe; nothing
// arrives when CMD was executed.
struct Report {
  int32_t step = 0;
  int32_t err = 0;
  int32_t index = -1;
};

// Everything the child needs, prepared before fork() so that the child
// only makes system calls (no allocation between fork and exec).
struct ChildPlan {
  char uid_map[64];
  char gid_map[64];
  std::vector<const char*> targets;
  std::vector<HideKind> kinds;
  std::vector<char*> argv;
  /// kScratchFolders less those a target covers (the folder itself or an
  /// ancestor of it): staging the empty files there would leave them in
  /// CMD's view, or make the scratch mount unreachable to detach.
  std::vector<const char*> scratch;
  int report_fd = -1;
  pid_t parent = 0;
};

constexpr const char* kScratchFolders[] = {"/tmp", "/mnt", "/var/tmp", "/run"};

volatile sig_atomic_t g_child_pid = 0;

void forward_signal(int sig) {
  if (g_child_pid > 0) kill(static_cast<pid_t>(g_child_pid), sig);
}

int write_text(const char* path, const char* text) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  size_t n = std::strlen(text);
  ssize_t w = write(fd, text, n);
  int err = w == static_cast<ssize_t>(n) ? 0 : (w < 0 ? errno : EIO);
  close(fd);
  return err;
}

[[noreturn]] void child_fail(const ChildPlan& cp, Step step, int err, int index = -1) {
  Report r;
  r.step = step;
  r.err = err;
  r.index = index;
  ssize_t ignored = write(cp.report_fd, &r, sizeof r);
  (void)ignored;
  _exit(step == kExec ? (err == ENOENT ? kExitNotFound : kExitCannotExecute) : 125);
}

// Restores what the parent changed (dispositions, mask) and executes CMD.
[[noreturn]] void exec_command(const ChildPlan& cp) {
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  for (int sig : {SIGINT, SIGQUIT, SIGTERM, SIGHUP}) sigaction(sig, &dfl, nullptr);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  execvp(cp.argv[0], cp.argv.data());
  child_fail(cp, kExec, errno);
}

[[noreturn]] void child_main(const ChildPlan& cp) {
  // Die with cuwheel: CMD must not outlive the process that reports on it.
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != cp.parent) _exit(125);

  if (cp.targets.empty()) {
    // Nothing to cover (a machine without a driver): no namespace is
    // needed, so CMD runs where namespaces are not permitted too.
    exec_command(cp);
  }
  if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) child_fail(cp, kUnshare, errno);
  // user_namespaces(7): gid_map may be written by an unprivileged process
  // only after setgroups is denied; kernels before 3.19 have no file.
  if (int e = write_text("/proc/self/setgroups", "deny"); e != 0 && e != ENOENT) child_fail(cp, kSetgroups, e);
  if (int e = write_text("/proc/self/uid_map", cp.uid_map); e != 0) child_fail(cp, kUidMap, e);
  if (int e = write_text("/proc/self/gid_map", cp.gid_map); e != 0) child_fail(cp, kGidMap, e);
  // Nothing mounted here may propagate back to the host's namespace.
  if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) child_fail(cp, kPrivate, errno);

  // Open every target before the scratch tmpfs hides anything.
  const size_t n = cp.targets.size();
  int stack_fds[256];
  std::vector<int> heap_fds;  // only for plans over 256 targets
  int* fds = stack_fds;
  if (n > 256) {
    heap_fds.resize(n);
    fds = heap_fds.data();
  }
  for (size_t i = 0; i < n; ++i) {
    fds[i] = open(cp.targets[i], O_PATH | O_CLOEXEC);
    if (fds[i] < 0) child_fail(cp, kOpenTarget, errno, static_cast<int>(i));
  }

  const char* scratch = nullptr;
  int scratch_err = 0;
  if (cp.scratch.empty()) child_fail(cp, kNoScratch, 0);
  for (const char* s : cp.scratch) {
    if (mount("cuwheel-hide-driver", s, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "size=64k,mode=0755") == 0) {
      scratch = s;
      break;
    }
    scratch_err = errno;
  }
  if (!scratch) child_fail(cp, kScratch, scratch_err);
  char lib[64], dev[64], dir[64];
  std::snprintf(lib, sizeof lib, "%s/library", scratch);
  std::snprintf(dev, sizeof dev, "%s/device", scratch);
  std::snprintf(dir, sizeof dir, "%s/folder", scratch);
  for (const char* f : {lib, dev}) {
    int fd = open(f, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0);
    if (fd < 0) child_fail(cp, kScratchFile, errno);
    // The umask does not apply to fchmod: the library cover is readable
    // (dlopen reads it and finds it too short), the device cover is not.
    if (fchmod(fd, f == lib ? 0444 : 0) != 0) child_fail(cp, kScratchFile, errno);
    close(fd);
  }
  if (mkdir(dir, 0555) != 0 || chmod(dir, 0555) != 0) child_fail(cp, kScratchFile, errno);
  if (mount(nullptr, scratch, nullptr, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0)
    child_fail(cp, kScratchRemount, errno);
  int src_lib = open(lib, O_PATH | O_CLOEXEC);
  int src_dev = open(dev, O_PATH | O_CLOEXEC);
  int src_dir = open(dir, O_PATH | O_CLOEXEC);
  if (src_lib < 0 || src_dev < 0 || src_dir < 0) child_fail(cp, kScratchFile, errno);

  for (size_t i = 0; i < n; ++i) {
    int src = cp.kinds[i] == HideKind::directory ? src_dir : cp.kinds[i] == HideKind::device ? src_dev : src_lib;
    char from[64], to[64];
    std::snprintf(from, sizeof from, "/proc/self/fd/%d", src);
    std::snprintf(to, sizeof to, "/proc/self/fd/%d", fds[i]);
    if (mount(from, to, nullptr, MS_BIND, nullptr) != 0) child_fail(cp, kBind, errno, static_cast<int>(i));
    close(fds[i]);
  }
  close(src_lib);
  close(src_dev);
  close(src_dir);
  // The covers keep the tmpfs alive; the scratch folder shows its own
  // contents again.
  if (umount2(scratch, MNT_DETACH) != 0) child_fail(cp, kDetach, errno);
  exec_command(cp);
}

std::string describe_failure(const Report& r, const HidePlan& plan, const std::string& cmd) {
  auto target = [&]() -> std::string {
    return r.index >= 0 && static_cast<size_t>(r.index) < plan.targets.size() ? plan.targets[r.index].path : "?";
  };
  const std::string why = std::strerror(r.err);
  switch (r.step) {
    case kUnshare:
      return "cannot create a user and mount namespace: unshare(CLONE_NEWUSER|CLONE_NEWNS): " + why + ": " +
             explain_namespace_failure("unshare", r.err, geteuid() == 0);
    case kSetgroups:
      return "cannot write /proc/self/setgroups in the new user namespace: " + why + ": " +
             explain_namespace_failure("uid_map", r.err, geteuid() == 0);
    case kUidMap:
      return "cannot write /proc/self/uid_map in the new user namespace: " + why + ": " +
             explain_namespace_failure("uid_map", r.err, geteuid() == 0);
    case kGidMap:
      return "cannot write /proc/self/gid_map in the new user namespace: " + why + ": " +
             explain_namespace_failure("uid_map", r.err, geteuid() == 0);
    case kPrivate:
      return "cannot make the mounts of the new namespace private (mount / MS_REC|MS_PRIVATE): " + why + ": " +
             explain_namespace_failure("mount", r.err, geteuid() == 0);
    case kOpenTarget: return target() + ": cannot be opened to cover it: " + why;
    case kScratch:
      return "cannot mount a tmpfs for the empty files on /tmp, /mnt, /var/tmp or /run: " + why + ": " +
             explain_namespace_failure("mount", r.err, geteuid() == 0);
    case kNoScratch:
      return "cannot stage the empty files: /tmp, /mnt, /var/tmp and /run are all hidden themselves (leave one of "
             "them out of --also)";
    case kScratchFile: return "cannot create the empty files in the scratch tmpfs: " + why;
    case kScratchRemount: return "cannot make the scratch tmpfs read-only: " + why;
    case kBind: return target() + ": cannot be covered (bind mount): " + why;
    case kDetach: return "cannot detach the scratch tmpfs: " + why;
    case kExec: return cmd + ": " + why;
  }
  return "unknown failure report from the child process";
}

}  // namespace

Expected<RunOutcome> run_with_driver_hidden(const HidePlan& plan, const std::vector<std::string>& argv) {
  if (argv.empty()) return Error("no command to run");
  ChildPlan cp;
  std::snprintf(cp.uid_map, sizeof cp.uid_map, "%u %u 1\n", static_cast<unsigned>(geteuid()),
                static_cast<unsigned>(geteuid()));
  std::snprintf(cp.gid_map, sizeof cp.gid_map, "%u %u 1\n", static_cast<unsigned>(getegid()),
                static_cast<unsigned>(getegid()));
  for (const auto& t : plan.targets) {
    cp.targets.push_back(t.path.c_str());
    cp.kinds.push_back(t.kind);
  }
  for (const char* s : kScratchFolders) {
    const std::string folder = s;
    bool covered = false;
    for (const auto& t : plan.targets)
      if (t.path == folder || folder.starts_with(t.path + "/")) covered = true;
    if (!covered) cp.scratch.push_back(s);
  }
  std::vector<std::string> args = argv;
  for (auto& a : args) cp.argv.push_back(a.data());
  cp.argv.push_back(nullptr);
  cp.parent = getpid();

  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return Error(std::string("pipe: ") + std::strerror(errno));
  cp.report_fd = fds[1];

  // SIGINT/SIGQUIT go to CMD from the terminal; cuwheel waits for it.
  // SIGTERM/SIGHUP sent to cuwheel are passed on to CMD. They stay blocked
  // until the child's pid is known (and in the child until exec).
  struct sigaction ign {}, fwd {}, old_int {}, old_quit {}, old_term {}, old_hup {};
  ign.sa_handler = SIG_IGN;
  sigemptyset(&ign.sa_mask);
  fwd.sa_handler = forward_signal;
  sigemptyset(&fwd.sa_mask);
  sigset_t block, old_mask;
  sigemptyset(&block);
  sigaddset(&block, SIGTERM);
  sigaddset(&block, SIGHUP);
  sigprocmask(SIG_BLOCK, &block, &old_mask);
  sigaction(SIGINT, &ign, &old_int);
  sigaction(SIGQUIT, &ign, &old_quit);
  sigaction(SIGTERM, &fwd, &old_term);
  sigaction(SIGHUP, &fwd, &old_hup);
  auto restore = [&]() {
    g_child_pid = 0;
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGQUIT, &old_quit, nullptr);
    sigaction(SIGTERM, &old_term, nullptr);
    sigaction(SIGHUP, &old_hup, nullptr);
    sigprocmask(SIG_SETMASK, &old_mask, nullptr);
  };

  pid_t pid = fork();
  if (pid < 0) {
    int e = errno;
    close(fds[0]);
    close(fds[1]);
    restore();
    return Error(std::string("fork: ") + std::strerror(e));
  }
  if (pid == 0) {
    close(fds[0]);
    child_main(cp);
  }
  g_child_pid = pid;
  sigprocmask(SIG_SETMASK, &old_mask, nullptr);
  close(fds[1]);

  Report report;
  size_t got = 0;
  while (got < sizeof report) {
    ssize_t n = read(fds[0], reinterpret_cast<char*>(&report) + got, sizeof report - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<size_t>(n);
  }
  close(fds[0]);

  int wstatus = 0;
  while (waitpid(pid, &wstatus, 0) < 0) {
    if (errno != EINTR) {
      int e = errno;
      restore();
      return Error(std::string("waitpid: ") + std::strerror(e));
    }
  }
  restore();

  RunOutcome out;
  if (got == sizeof report && report.step != kExec) return Error(describe_failure(report, plan, argv[0]));
  if (got == sizeof report && report.step == kExec) {
    out.exec_error = describe_failure(report, plan, argv[0]);
    out.status = report.err == ENOENT ? kExitNotFound : kExitCannotExecute;
    return out;
  }
  if (WIFEXITED(wstatus)) {
    out.status = WEXITSTATUS(wstatus);
  } else if (WIFSIGNALED(wstatus)) {
    out.signal = WTERMSIG(wstatus);
    out.status = 128 + out.signal;
  }
  return out;
}

}  // namespace cuwheel
