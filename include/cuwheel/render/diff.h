// cuwheel: the `cuwheel diff` report (docs/diff.md) as text and JSON, from
// the comparison of two builds (cuwheel/release/diff.h). Pure functions:
// nothing is read or printed here.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

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

}  // namespace cuwheel::render
