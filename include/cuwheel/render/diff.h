// cuwheel: the `cuwheel diff` report (docs/diff.md) as text and JSON, from
// the comparison of two builds (cuwheel/release/diff.h). Pure functions:
// nothing is read or printed here.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "cuwheel/base/diagnostic.h"
#include "cuwheel/release/diff.h"

namespace cuwheel::render {

/// The text report: the wheel and installed sizes old -> new with their
/// change (sizes in powers of 10: "812.3 MB"), each gate's limit and
/// outcome, the members added, removed and changed (the `top` largest
/// changes; 0: all) and the ELF facts that changed (NEEDED, RUNPATH,
/// device code). Names from the wheels go through printable()
/// (cuwheel/base/bytes.h).
std::string render_diff_text(const diff::WheelDiff& d, const std::vector<diff::Gate>& gates, size_t top);

/// The JSON document (schema 1, docs/diff.md), one line per value, ending
/// in a newline; bytes that are not UTF-8 become U+FFFD, never an abort.
std::string render_diff_json(const diff::WheelDiff& d, const std::vector<diff::Gate>& gates);

/// The diff's problems as diagnostics (docs/diagnostics.md), for the SARIF
/// and GitHub reports: one `wheel-growth` (CW911) or `installed-growth`
/// (CW912) error per exceeded gate, path the new wheel, its message the
/// gate's text line; one `duplicate-member` (CW913) warning per name a
/// wheel stores twice or more (path that wheel, member the name). Gates
/// within their limit give nothing. Text is not escaped here: the caller's
/// renderer does it.
std::vector<Diagnostic> diff_diagnostics(const diff::WheelDiff& d, const std::vector<diff::Gate>& gates);

}  // namespace cuwheel::render
