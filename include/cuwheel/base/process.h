// cuwheel: child processes that end with their descendants.
//
// A command cuwheel runs with a time limit (nvcc --version, a toolkit's
// test compile) may be a wrapper script whose own children outlive it. Each
// such child is started as the leader of a new process group (POSIX
// posix_spawn, POSIX_SPAWN_SETPGROUP with group 0), and ending it sends
// SIGKILL to the whole group, so no grandchild keeps running, holding a
// pipe or the CPU, after cuwheel has given up on it.
#pragma once

#include <spawn.h>
#include <sys/types.h>

#include <string>
#include <vector>

#include "cuwheel/base/expected.h"

namespace cuwheel {

/// Starts `argv[0]` (a path; no PATH search, no shell) with `argv` and the
/// current environment, as the leader of a new process group. `actions`
/// (may be null) redirects its descriptors. Returns its pid, which is also
/// the group's id. Errors: posix_spawn's, with strerror and argv[0].
Expected<pid_t> spawn_in_new_group(const std::vector<std::string>& argv, const posix_spawn_file_actions_t* actions);

/// Ends the process group that `pid` leads: SIGKILL to every process in it
/// (the leader included, if still running), then waits for the leader.
/// Returns the leader's wait status (waitpid), or -1 when it could not be
/// reaped. Safe when the leader has already exited and been reaped by no
/// one else: its group members are still ended.
int end_group(pid_t pid);

/// Waits for the leader `pid` without a limit, then ends what is left of its
/// group (children it left behind). Returns the leader's wait status, or -1.
int wait_and_end_group(pid_t pid);

}  // namespace cuwheel
