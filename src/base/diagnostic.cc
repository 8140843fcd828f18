// Severity names (include/cuwheel/base/diagnostic.h).
#include "cuwheel/base/diagnostic.h"

namespace cuwheel {

std::string_view to_string(Severity s) {
  switch (s) {
    case Severity::off: return "off";
    case Severity::warning: return "warning";
    case Severity::error: return "error";
    case Severity::note: return "note";
  }
  return "error";
}

std::optional<Severity> parse_severity(std::string_view s) {
  if (s == "off" || s == "ignore") return Severity::off;
  if (s == "warning" || s == "warn") return Severity::warning;
  if (s == "error") return Severity::error;
  if (s == "note") return Severity::note;
  return std::nullopt;
}

}  // namespace cuwheel
