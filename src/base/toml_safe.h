// The one way the library includes and calls toml++ (internal header).
//
// toml++ is used header-only with exceptions off, so parse errors come back
// as values (toml::parse_result) and nothing is thrown across the library
// boundary. Version 3.3.0 (Debian 12) is not safe on all input, and every
// TOML reader of the project (check policy, matrix and release policies,
// toolkit lock) goes through this header so that they agree:
//  * Its internal assertions fire on malformed input where it should report
//    an error (parse_key() on a table header such as "[|x]" or "[{"), and
//    with NDEBUG under clang they become __builtin_assume, undefined
//    behaviour. TOML_ASSERT is made a no-op and NDEBUG is hidden while the
//    header is read, so TOML_ASSERT_ASSUME is a no-op in every build type
//    and compiler; the parser's own error branch then reports the input.
//    Every file includes toml++ only through here, so the inline functions
//    are the same in every translation unit.
//  * is_non_ascii_horizontal_whitespace() reaches TOML_UNREACHABLE for code
//    points U+00A1..U+0499, U+2C5E..U+3057 (but U+3000) and U+FB26..U+FEFE
//    when they stand outside a string ("José = 1"); invalid UTF-8 reaches an
//    assumption in parse_key(). parse_toml_text() therefore checks the text
//    is UTF-8 (TOML 1.0 requires it) and replaces those code points by
//    U+FFFD (never whitespace, same line structure) before parsing. No value
//    the project reads from TOML is non-ASCII, so a replaced character in
//    one is still rejected by that value's own check.
#pragma once

#pragma push_macro("NDEBUG")
#undef NDEBUG
#define TOML_HEADER_ONLY 1
#define TOML_EXCEPTIONS 0
#define TOML_ASSERT(expr) static_assert(true)
#include <toml++/toml.h>
#pragma pop_macro("NDEBUG")

#include <string>
#include <string_view>

#include "cuwheel/base/expected.h"

namespace cuwheel::tomlsafe {

/// The text toml++ may be given: `text` with the code points above replaced
/// by U+FFFD. Errors: "<source>:<line>: not valid UTF-8 (TOML files are
/// UTF-8)"; a key or table header of more than 128 dotted parts, or
/// arrays/inline tables/headers nested deeper than 128 levels (toml++
/// 3.3.0 recurses on both and overflows the stack: a 105,000-part key in
/// a pyproject.toml the user never named crashed check).
Expected<std::string> safe_text(std::string_view text, const std::string& source);

/// safe_text() then toml::parse(). A parse error is returned as
/// "<source>:<line>: <description>".
Expected<toml::table> parse(std::string_view text, const std::string& source);

/// Reads the file (at most 64 MiB) and parse()s it; errors name the path.
Expected<toml::table> parse_file(const std::string& path);

}  // namespace cuwheel::tomlsafe
