// Declarations of every rule function (see rules.def) and helpers they share.
#pragma once

#include <string>

#include "cuwheel/check/check.h"

namespace cuwheel::check::rule_impl {

#define RULE(code, name, fn, sev, group, per_run, summary) void fn(const Context& ctx, Emitter& out);
#include "device.def"
#include "loading.def"
#include "wheel.def"
#include "release.def"
#undef RULE

/// The member's file name (last path component).
std::string base_name(const std::string& member);

}  // namespace cuwheel::check::rule_impl
