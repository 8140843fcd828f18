// Helpers shared by the loading rules. See loading_util.h.
#include "loading_util.h"

#include <cctype>
#include <initializer_list>

#include "cuwheel/wheel/pep508.h"
#include "rules.h"

namespace cuwheel::check::rule_impl::loading {


std::vector<Distribution> distributions_in(const std::string& dir) {
  std::vector<Distribution> out;
  for (int major : {12, 13})
    for (const auto& d : distributions_for_major(major))
      if (d.directory == dir) out.push_back(d);
  return out;
}

std::optional<int> folder_major(const std::string& dir) {
  bool in12 = false, in13 = false;
  for (const auto& d : distributions_for_major(12)) in12 |= d.directory == dir;
  for (const auto& d : distributions_for_major(13)) in13 |= d.directory == dir;
  if (in12 && !in13) return 12;
  if (in13 && !in12) return 13;
  return std::nullopt;
}


const char* package_noun(const CheckModel& m) {
  return m.kind == CheckModel::Kind::installed ? "distribution" : "wheel";
}


std::string join_some(const std::vector<std::string>& items, size_t max) {
  std::string out;
  for (size_t i = 0; i < items.size() && i < max; ++i) out += (i ? ", " : "") + items[i];
  if (items.size() > max) out += " and " + std::to_string(items.size() - max) + " more";
  return out;
}

std::map<std::string, std::string> declared_distributions(const CheckModel& m) {
  std::map<std::string, std::string> out;
  if (!m.metadata) return out;
  const std::string self = normalize_name(m.metadata->name);
  for (const auto& text : m.metadata->requires_dist)
    if (auto r = Requirement::parse(text); r && r->normalized_name() != self) out.emplace(r->normalized_name(), text);
  return out;
}

const model::Provider* declared_provider(const Context& ctx, const std::map<std::string, std::string>& declared,
                                         const std::string& soname) {
  for (const model::Provider* p : ctx.providers.find(soname))
    if (declared.count(p->distribution)) return p;
  return nullptr;
}

bool entry_never_decides(const Context& ctx, const model::LoadResolution& loads, size_t li,
                         const std::vector<SearchEntry>& searched, size_t pos,
                         const std::map<std::string, std::string>& declared) {
  const CheckModel& m = ctx.model;
  if (!m.is_distribution() || li >= loads.needed.size()) return false;
  const LibraryModel& lib = m.libraries[li];
  if (pos >= searched.size()) return true;
  if (loads.needed[li].size() != lib.load.needed.size()) return false;
  using How = model::NeededResolution::How;
  for (size_t k = 0; k < lib.load.needed.size(); ++k) {
    const auto& r = loads.needed[li][k];
    if (r.how == How::system || r.how == How::driver || r.how == How::as_path || r.how == How::loaded ||
        r.how == How::loader_rpath)
      continue;
    if (r.how == How::unresolved) {
      if (declared_provider(ctx, declared, lib.load.needed[k])) continue;
      return false;
    }
    size_t at = searched.size();
    for (size_t i = 0; i < searched.size(); ++i)
      if (searched[i].raw == r.entry && searched[i].tag == r.tag) {
        at = i;
        break;
      }
    if (at >= pos) return false;  // found there: the entry decides
  }
  return true;
}

size_t search_position(const std::vector<SearchEntry>& searched, const SearchEntry& e) {
  for (size_t i = 0; i < searched.size(); ++i)
    if (searched[i].raw == e.raw && searched[i].tag == e.tag) return i;
  return searched.size();
}

}  // namespace cuwheel::check::rule_impl::loading
