// Child processes in their own process group. See include/cuwheel/base/process.h.
#include "cuwheel/base/process.h"

#include <signal.h>
#include <sys/wait.h>

#include <cerrno>
#include <cstring>

extern char** environ;

namespace cuwheel {

Expected<pid_t> spawn_in_new_group(const std::vector<std::string>& argv, const posix_spawn_file_actions_t* actions) {
  if (argv.empty()) return Error("no command to run");
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);  // a new group whose id is the child's pid
  pid_t pid = 0;
  int rc = ::posix_spawn(&pid, args[0], actions, &attr, args.data(), environ);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) return Error(argv[0] + ": cannot run: " + std::strerror(rc));
  return pid;
}

namespace {
int reap(pid_t pid) {
  int status = 0;
  for (;;) {
    pid_t w = ::waitpid(pid, &status, 0);
    if (w == pid) return status;
    if (w < 0 && errno == EINTR) continue;
    return -1;
  }
}
}  // namespace

int end_group(pid_t pid) {
  if (pid <= 0) return -1;
  ::kill(-pid, SIGKILL);  // the leader is not reaped yet, so the group id is still its own
  return reap(pid);
}

int wait_and_end_group(pid_t pid) {
  if (pid <= 0) return -1;
  // Wait without reaping: while the leader is a zombie its pid, and so the
  // group id, cannot be given to another process.
  siginfo_t info;
  for (;;) {
    if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOWAIT) == 0) break;
    if (errno != EINTR) return -1;
  }
  ::kill(-pid, SIGKILL);  // what the leader left behind; ESRCH when nothing is
  return reap(pid);
}

}  // namespace cuwheel
