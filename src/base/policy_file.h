// Where a command finds its policy file when none is given (internal header).
//
// check, matrix and release all read their settings from the same two
// files, found the same way: from a starting folder up to the filesystem
// root, in each folder `cuwheel.toml` first, then `pyproject.toml` (PEP 518
// reserves its [tool.<name>] tables for tools: ours is [tool.cuwheel]).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace cuwheel::policyfile {

/// The largest policy file any command reads: 16 MiB (docs/limits.md).
inline constexpr uint64_t kMaxPolicyBytes = uint64_t{16} << 20;

/// Looks in `start` (a folder; relative to the working folder) and then in
/// each parent, and returns the path of the first file that holds the
/// command's table, or "" when none does:
///  * `cuwheel.toml` with a top-level table `section` ([matrix], [release]);
///    with `section` empty, any cuwheel.toml (check reads its top level);
///  * `pyproject.toml` with [tool.cuwheel] (section empty) or
///    [tool.cuwheel.<section>].
/// A file that is not valid TOML counts when its text mentions the table
/// (`section`, or `tool.cuwheel[.section]`), so that loading it reports the
/// syntax error instead of the command silently running on its defaults.
/// Only regular files are considered (a FIFO is never opened); a file that
/// cannot be read does not count; one over kMaxPolicyBytes counts (without
/// being read), so that loading it reports its size. Never fails.
std::string find(const std::string& start, std::string_view section);

/// For a command whose find() came back empty: the first file on the same
/// search path that holds a table whose name is a near misspelling of
/// `section` (suggest.h), as `FILE has [relase]: did you mean [release]?`
/// (or `[tool.cuwheel.relase]`); "" when there is none. Never fails.
std::string near_miss(const std::string& start, std::string_view section);

}  // namespace cuwheel::policyfile
