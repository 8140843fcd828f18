// cuwheel: stable finding fingerprints and the check baseline.
//
// A project adopting cuwheel on a large wheel wants today's findings
// accepted and only new ones to fail the build (as ruff's `--add-noqa` or a
// code-scanning baseline do). A finding is recognised across builds by its
// fingerprint: the rule, the distribution (not the wheel's file name, which
// carries the version), the member with the version taken out of
// `<name>-<version>.dist-info` / `.data`, and the location and message with
// every number or PEP 440 version replaced by `#` (a METADATA line number;
// 1.0.0, 2.0, 1.0.0rc1, 10.4.1.post2+cu128; a soname's major; sm_90a stays
// sm_#a); two findings of one fingerprint are counted, so a second
// unresolved NEEDED in one library is new. The same fingerprint is SARIF's
// partialFingerprints entry (SARIF 2.1.0 section 3.27.17), which code
// scanning uses to follow a result from one upload to the next.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "cuwheel/base/expected.h"
#include "cuwheel/check/check.h"

namespace cuwheel::check {

/// The distribution a finding's input names: the wheel file name's first
/// component (PEP 427), normalized (PEP 503: lower case, runs of `-_.` as
/// `-`); for another file, its file name.
std::string finding_distribution(const std::string& input_path);

/// 32 lowercase hex digits: the first 16 bytes of SHA-256 over the rule,
/// distribution, normalized member, location and message, NUL-separated.
std::string fingerprint(const Finding& finding);

/// The baseline file: JSON `{"schema": 1, "tool": ..., "findings":
/// [{"fingerprint", "rule", "distribution", "member", "message"}, ...]}`,
/// one entry per finding (a fingerprint repeats when findings share it);
/// rule, distribution, member and message are there for the reader.
std::string render_baseline(const std::vector<Finding>& findings);

/// fingerprint -> how many findings of it the baseline accepts.
using Baseline = std::map<std::string, size_t>;

/// Parses a baseline file's text. Errors (naming `where`): not JSON, no
/// `findings` array, an entry without a 32-hex-digit `fingerprint`, a
/// schema other than 1.
Expected<Baseline> parse_baseline(std::string_view text, const std::string& where);

/// Removes from `findings` those the baseline accepts, in order (the first
/// findings of a fingerprint up to its count), and returns how many it
/// removed. `baseline` is consumed as it matches.
size_t apply_baseline(std::vector<Finding>& findings, Baseline baseline);

}  // namespace cuwheel::check
