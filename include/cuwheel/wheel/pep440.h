// cuwheel: PEP 440 versions and version specifiers.
//
// Follows PEP 440 ("Version Identification and Dependency Specification")
// as implemented by the `packaging` library, which pip and uv agree with:
//
//   [N!]N(.N)*[{a|b|rc}N][.postN][.devN][+local]
//
// Parsing accepts the spellings PEP 440 section "Normalization" allows
// (case-insensitive, leading `v`, `alpha`/`beta`/`c`/`pre`/`preview`,
// `rev`/`r`, `-`/`_`/`.` separators, implicit numbers, `1.0-1` as a post
// release) and to_string() gives the normalized form. Numbers are kept as
// uint64; a longer digit string is rejected rather than wrapped.
#pragma once

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "cuwheel/base/expected.h"

namespace cuwheel {

/// A parsed PEP 440 version. Compare with <=>; equality is PEP 440
/// equality (trailing zeros in the release do not matter: 1.0 == 1.0.0).
struct Version {
  enum class PreKind : uint8_t { kAlpha, kBeta, kRc };
  struct Pre {
    PreKind kind;
    uint64_t number;
  };
  /// A local segment is either a number or a lowercase alphanumeric string.
  using LocalPart = std::variant<uint64_t, std::string>;

  uint64_t epoch = 0;
  std::vector<uint64_t> release;  ///< never empty after a successful parse
  std::optional<Pre> pre;
  std::optional<uint64_t> post;
  std::optional<uint64_t> dev;
  std::vector<LocalPart> local;  ///< empty when there is no `+local`

  /// Parses `text` (surrounding whitespace allowed). Errors: the text is
  /// not a PEP 440 version; the message quotes it and gives the 1-based
  /// column where parsing stopped.
  static Expected<Version> parse(std::string_view text);

  /// Normalized form, e.g. "1!2.0rc1.post2.dev3+cu130".
  std::string to_string() const;
  /// The version without its local label ("2.11.0" for "2.11.0+cu130").
  std::string public_string() const;
  /// Epoch and release only ("2.11.0").
  std::string base_string() const;

  bool is_prerelease() const { return pre.has_value() || dev.has_value(); }
  bool is_postrelease() const { return post.has_value(); }
  bool is_devrelease() const { return dev.has_value(); }
  bool has_local() const { return !local.empty(); }

  /// Copy without the local label.
  Version without_local() const;

  /// PEP 440 ordering ("Summary of permitted suffixes and relative ordering").
  std::strong_ordering operator<=>(const Version& other) const;
  bool operator==(const Version& other) const { return (*this <=> other) == 0; }
};

/// One clause of a specifier set, e.g. ">=13.0" or "==13.0.*".
struct Specifier {
  enum class Op : uint8_t {
    kCompatible,  ///< ~=
    kEqual,       ///< ==
    kNotEqual,    ///< !=
    kLessEqual,   ///< <=
    kGreaterEqual,///< >=
    kLess,        ///< <
    kGreater,     ///< >
    kArbitrary,   ///< === (string equality, no version semantics)
  };
  Op op = Op::kEqual;
  Version version;        ///< unused for ===
  bool wildcard = false;  ///< `==V.*` / `!=V.*` (prefix match on epoch+release)
  std::string text;       ///< the version text as written (=== compares this)

  /// Parses one clause ("~= 1.4.5", "==1.0.*"). Errors: unknown operator,
  /// invalid version, `.*` with an operator other than == or !=, a local
  /// label with an ordered operator or ~=, ~= with a single release segment.
  static Expected<Specifier> parse(std::string_view text);

  /// Whether `v` satisfies this clause alone (pre-release policy is applied
  /// by SpecifierSet, not here).
  bool contains(const Version& v) const;
  /// For === only meaningful use: the candidate as written.
  bool contains_text(std::string_view version_text) const;

  /// True when the clause names a pre-release (so a set containing it admits
  /// pre-releases by default, PEP 440 "Handling of pre-releases").
  bool mentions_prerelease() const;

  /// Normalized text, e.g. ">=13.0", "==13.0.*".
  std::string to_string() const;
};

/// Spells the operator ("~=", "==", ...).
std::string_view to_string(Specifier::Op op);

/// A comma-separated conjunction of specifiers, e.g. ">=13.0,<14". An empty
/// set contains every version except, by default, pre-releases.
struct SpecifierSet {
  std::vector<Specifier> specifiers;

  /// Parses "" or "spec(,spec)*" with optional whitespace. Errors: any
  /// clause fails Specifier::parse, or an empty clause ("a,,b"); the
  /// message gives the 1-based column of the bad clause.
  static Expected<SpecifierSet> parse(std::string_view text);

  /// True when every clause contains `v`. Pre-releases (and dev releases)
  /// are rejected unless `include_prereleases` is set or a clause itself
  /// names a pre-release, as PEP 440 recommends.
  bool contains(const Version& v, bool include_prereleases = false) const;
  /// Parses `version_text` first; false when it is not a valid version
  /// (only a === clause can then match).
  bool contains(std::string_view version_text, bool include_prereleases = false) const;

  bool empty() const { return specifiers.empty(); }
  /// Clauses joined by "," in the order written.
  std::string to_string() const;
};

}  // namespace cuwheel
