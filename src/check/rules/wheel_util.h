// Small helpers shared by the wheel, metadata and release-set rules.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cuwheel/check/check.h"
#include "cuwheel/wheel/pep440.h"
#include "cuwheel/wheel/pep508.h"

namespace cuwheel::check::rule_impl {

/// Bytes as megabytes (10^6, as the policy's "MB"), with enough digits to
/// tell small sizes apart: "539 MB", "7.5 MB", "0.066 MB".
inline std::string megabytes(uint64_t bytes) {
  double mb = static_cast<double>(bytes) / 1e6;
  char buf[64];
  if (mb >= 100) std::snprintf(buf, sizeof buf, "%.0f MB", mb);
  else if (mb >= 1) std::snprintf(buf, sizeof buf, "%.1f MB", mb);
  else std::snprintf(buf, sizeof buf, "%.3f MB", mb);
  return buf;
}

/// "METADATA line N" for the first field `name` whose value is `value`
/// (any value when `value` is empty); "METADATA" when not found.
inline std::string metadata_location(const CoreMetadata& md, std::string_view name, std::string_view value = {}) {
  for (const auto& f : md.raw.fields) {
    if (f.name.size() != name.size()) continue;
    bool same = std::equal(f.name.begin(), f.name.end(), name.begin(), name.end(), [](char a, char b) {
      return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
    });
    if (same && (value.empty() || f.value == value)) return "METADATA line " + std::to_string(f.line);
  }
  return "METADATA";
}

/// True when both texts are PEP 440 versions that compare equal, or (when
/// either is not a version) the texts are equal.
inline bool same_version(std::string_view a, std::string_view b, bool ignore_local = false) {
  auto va = Version::parse(a), vb = Version::parse(b);
  if (!va || !vb) return a == b;
  if (ignore_local) return va->without_local() == vb->without_local();
  return *va == *vb;
}

/// The normalized version text, or the text itself when it is not PEP 440.
inline std::string normalized_version(std::string_view v) {
  auto pv = Version::parse(v);
  return pv ? pv->to_string() : std::string(v);
}

/// The wheel's parsed Requires-Dist entries (those that parse), with the
/// text each came from.
struct ParsedRequirement {
  std::string text;
  Requirement req;
};
inline std::vector<ParsedRequirement> parsed_requirements(const CoreMetadata& md) {
  std::vector<ParsedRequirement> out;
  for (const auto& t : md.requires_dist) {
    auto r = Requirement::parse(t);
    if (r) out.push_back({t, std::move(*r)});
  }
  return out;
}

/// The requirement's single `==V` clause (no wildcard), or nullptr when it
/// is not an exact pin. `===V` counts as exact too.
inline const Specifier* exact_pin(const Requirement& r) {
  if (r.url || r.specifier.specifiers.size() != 1) return nullptr;
  const Specifier& s = r.specifier.specifiers[0];
  if ((s.op == Specifier::Op::kEqual && !s.wildcard) || s.op == Specifier::Op::kArbitrary) return &s;
  return nullptr;
}

/// The wheel's own name, PEP 503-normalized: from METADATA, else the file name.
inline std::string own_name(const CheckModel& m) {
  if (m.metadata) return normalize_name(m.metadata->name);
  if (m.parsed_filename) return normalize_name(m.parsed_filename->distribution);
  return "";
}

/// The wheel's own version as written: from METADATA, else the file name.
inline std::string own_version(const CheckModel& m) {
  if (m.metadata) return m.metadata->version;
  if (m.parsed_filename) return m.parsed_filename->version;
  return "";
}

}  // namespace cuwheel::check::rule_impl
