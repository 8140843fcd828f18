// cuwheel: checks on JSON text before it is parsed.
//
// nlohmann::json parses, copies and compares values recursively, once per
// nesting level: 80,000 levels of '[' overflow the stack. Inputs cuwheel
// reads as JSON (build matrices, check baselines) are first scanned here,
// iteratively, and refused past a small depth.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace cuwheel {

/// The byte offset of the first '[' or '{' that opens level max_depth + 1,
/// or nullopt when the text never nests that deep. Brackets inside strings
/// (RFC 8259 section 7: '"' ... '"' with '\\' escapes) do not count. Text
/// that is not JSON is left to the parser, which names the wrong byte.
std::optional<size_t> json_too_deep(std::string_view text, size_t max_depth);

}  // namespace cuwheel
