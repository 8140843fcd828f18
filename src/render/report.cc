// Grouping findings that share one cause. See include/cuwheel/render/report.h.
#include <map>
#include <tuple>

#include "cuwheel/render/report.h"

namespace cuwheel::check {

std::vector<std::vector<size_t>> group_findings(const std::vector<Finding>& findings) {
  using Key = std::tuple<const std::string&, const std::string&, Severity, const std::string&, const std::string&,
                         const std::string&>;
  std::map<Key, size_t> index;  // key -> position in `groups`
  std::vector<std::vector<size_t>> groups;
  for (size_t i = 0; i < findings.size(); ++i) {
    const Finding& f = findings[i];
    Key key{f.path, f.rule, f.severity, f.location, f.message, f.hint};
    auto [it, inserted] = index.emplace(key, groups.size());
    if (inserted) groups.emplace_back();
    groups[it->second].push_back(i);
  }
  return groups;
}

}  // namespace cuwheel::check
