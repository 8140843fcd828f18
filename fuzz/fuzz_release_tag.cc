// libFuzzer target: release tags and release policies (cuwheel/release/release.h).
// Input: the first line is a tag; the rest, when present, is the TOML text
// of a policy (else the dyng policy of docs/release.md is used). Checks the
// invariants the workflow relies on: an accepted tag is the prefix plus the
// normalized version; the plan uploads every selected distribution once per
// index, each step needing only earlier steps, plugins before the core.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <set>
#include <string>
#include <string_view>

#include "cuwheel/release/release.h"

using namespace cuwheel;
using namespace cuwheel::release;

namespace {

constexpr const char* kDefaultPolicy =
    "[release]\ncore = \"dyng\"\nplugins = [\"dyng-cu12\", \"dyng-cu13\"]\nplugins-since = \"0.2\"\n"
    "platforms = [\"manylinux_2_28_x86_64\"]\nplugin-tag = \"cp312-abi3\"\n";

void check(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  size_t nl = input.find('\n');
  std::string_view tag = input.substr(0, nl);
  std::string_view policy_text = nl == std::string_view::npos ? std::string_view() : input.substr(nl + 1);
  auto policy = parse_policy(policy_text.empty() ? std::string_view(kDefaultPolicy) : policy_text, "cuwheel.toml");
  if (!policy) return 0;

  auto sel = select(tag, *policy);
  if (!sel) return 0;
  check(policy->tag_prefix + sel->tag.version_text == tag);
  check(!sel->tag.version.has_local());
  check(sel->tag.to_production == !sel->tag.version.is_prerelease());
  check(!sel->indexes.empty() && sel->indexes.size() == (sel->tag.to_production ? 2u : 1u));
  check(!sel->distributions.empty() && sel->distributions.back().core);
  check(sel->plugins == plugins_ship(*policy, sel->tag.version));

  auto steps = plan_release(*sel);
  check(steps.size() == sel->distributions.size() * sel->indexes.size());
  std::set<std::string> done;
  bool core_done_on_index = false;
  std::string index;
  for (const auto& s : steps) {
    if (s.index.name != index) index = s.index.name, core_done_on_index = false;
    check(!(core_done_on_index && !s.core));  // no plugin after the core on one index
    core_done_on_index = core_done_on_index || s.core;
    for (const auto& n : s.needs) check(done.count(n) == 1);
    check(done.insert(s.id).second);
  }
  return 0;
}
