// Comparing two builds of a wheel. See include/cuwheel/release/diff.h.
#include "cuwheel/release/diff.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <tuple>

namespace cuwheel::diff {

namespace {

// The member's name with this build's versioned folders replaced by
// placeholders, so that both builds' names meet.
std::string match_key(const check::CheckModel& m, const std::string& name) {
  if (m.dist_info.empty()) return name;
  const std::string di = m.dist_info + "/";
  if (name.rfind(di, 0) == 0) return "\x01" "dist-info/" + name.substr(di.size());
  const std::string stem = m.dist_info.substr(0, m.dist_info.size() - std::string(".dist-info").size());
  const std::string data = stem + ".data/";
  if (m.dist_info.size() > 10 && name.rfind(data, 0) == 0) return "\x01" "data/" + name.substr(data.size());
  return name;
}

std::vector<std::string> minus(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  std::vector<std::string> out;
  for (const auto& x : a)
    if (std::find(b.begin(), b.end(), x) == b.end() && std::find(out.begin(), out.end(), x) == out.end())
      out.push_back(x);
  return out;
}

// The entries the loader searches: DT_RUNPATH when present, else DT_RPATH.
void search_path(const check::LibraryModel& lib, std::vector<std::string>& entries, std::string& tag) {
  if (!lib.load.runpath.empty()) {
    entries = lib.load.runpath;
    tag = "DT_RUNPATH";
  } else if (!lib.load.rpath.empty()) {
    entries = lib.load.rpath;
    tag = "DT_RPATH";
  }
}

// ELF files that are shared objects or executables in their own right
// (members of static archives are summarised by their archive).
bool whole_file(const check::LibraryModel& lib) { return lib.is_elf && lib.archive_member.empty(); }

}  // namespace

bool LibraryChange::changed() const {
  return !in_old || !in_new || !sass_added.empty() || !sass_removed.empty() || !ptx_added.empty() ||
         !ptx_removed.empty() || old_device_bytes != new_device_bytes || !needed_added.empty() ||
         !needed_removed.empty() || old_search_path != new_search_path || search_tag_old != search_tag_new;
}

WheelDiff diff_models(const check::CheckModel& o, const check::CheckModel& n) {
  WheelDiff d;
  d.old_path = o.path;
  d.new_path = n.path;
  d.old_file_size = o.archive_size;
  d.new_file_size = n.archive_size;
  // A name stored more than once: installers (pip's zipfile, installer)
  // extract every copy in central-directory order, so the last one is what
  // lands on disk; that copy is compared and counted, and the duplicate is
  // reported (APPNOTE.TXT 4.3.12 allows the repeat; PEP 427 does not).
  std::map<std::string, const check::MemberModel*> old_by_key, new_by_key;
  for (const auto& [model, by_key, which] :
       {std::tuple{&o, &old_by_key, "old"}, std::tuple{&n, &new_by_key, "new"}}) {
    std::map<std::string, size_t> copies;
    for (const auto& m : model->members) {
      (*by_key)[match_key(*model, m.name)] = &m;
      ++copies[m.name];
    }
    for (const auto& m : model->members) {
      auto it = copies.find(m.name);
      if (it == copies.end() || it->second < 2) continue;
      d.duplicates.push_back({which, model->path, m.name, it->second});
      copies.erase(it);  // once per name, in member order
    }
  }
  for (const auto& [key, m] : old_by_key) d.old_installed += m->size;
  for (const auto& [key, m] : new_by_key) d.new_installed += m->size;
  for (const auto& [key, nm] : new_by_key) {
    auto it = old_by_key.find(key);
    if (it == old_by_key.end()) {
      d.members.push_back({MemberChange::Kind::added, nm->name, "", 0, nm->compressed_size, 0, nm->size});
      continue;
    }
    const check::MemberModel* om = it->second;
    if (om->compressed_size == nm->compressed_size && om->size == nm->size && om->crc32 == nm->crc32) {
      ++d.unchanged_members;
      continue;
    }
    d.members.push_back({MemberChange::Kind::changed, nm->name, om->name == nm->name ? "" : om->name,
                         om->compressed_size, nm->compressed_size, om->size, nm->size});
  }
  for (const auto& [key, om] : old_by_key)
    if (!new_by_key.count(key))
      d.members.push_back({MemberChange::Kind::removed, om->name, "", om->compressed_size, 0, om->size, 0});
  std::stable_sort(d.members.begin(), d.members.end(), [](const MemberChange& a, const MemberChange& b) {
    auto ka = std::llabs(a.compressed_delta()), kb = std::llabs(b.compressed_delta());
    if (ka != kb) return ka > kb;
    return a.name < b.name;
  });

  // Libraries: matched the same way as members.
  std::map<std::string, const check::LibraryModel*> old_libs, new_libs;
  for (const auto& l : o.libraries)
    if (whole_file(l)) old_libs[match_key(o, l.member)] = &l;  // the last copy, as members
  for (const auto& l : n.libraries)
    if (whole_file(l)) new_libs[match_key(n, l.member)] = &l;
  std::set<std::string> keys;
  for (const auto& [k, l] : old_libs) keys.insert(k);
  for (const auto& [k, l] : new_libs) keys.insert(k);
  for (const auto& k : keys) {
    auto oi = old_libs.find(k);
    auto ni = new_libs.find(k);
    const check::LibraryModel* ol = oi == old_libs.end() ? nullptr : oi->second;
    const check::LibraryModel* nl = ni == new_libs.end() ? nullptr : ni->second;
    LibraryChange c;
    c.member = nl ? nl->member : ol->member;
    c.in_old = ol != nullptr;
    c.in_new = nl != nullptr;
    static const check::LibraryModel kNone;
    const check::LibraryModel& a = ol ? *ol : kNone;
    const check::LibraryModel& b = nl ? *nl : kNone;
    c.sass_added = minus(b.summary.sass, a.summary.sass);
    c.sass_removed = minus(a.summary.sass, b.summary.sass);
    c.ptx_added = minus(b.summary.ptx, a.summary.ptx);
    c.ptx_removed = minus(a.summary.ptx, b.summary.ptx);
    c.old_device_bytes = a.summary.stored_bytes;
    c.new_device_bytes = b.summary.stored_bytes;
    c.needed_added = minus(b.load.needed, a.load.needed);
    c.needed_removed = minus(a.load.needed, b.load.needed);
    search_path(a, c.old_search_path, c.search_tag_old);
    search_path(b, c.new_search_path, c.search_tag_new);
    if (c.changed()) d.libraries.push_back(std::move(c));
  }
  return d;
}

Expected<check::CheckModel> read_diff_wheel(const std::string& path) {
  check::BuildOptions bo;
  bo.hash_members = false;
  auto ms = check::build_models(path, bo);
  if (!ms) return ms.error();
  if (ms->size() != 1 || ms->front().kind != check::CheckModel::Kind::wheel)
    return Error(path + ": not a wheel file (diff compares two .whl files)");
  auto& m = ms->front();
  if (m.dist_info.empty())  // an empty zip, or one without metadata (PEP 427: {name}-{version}.dist-info/)
    return Error(path + ": not a wheel: " + (m.metadata_error.empty() ? "no .dist-info folder" : m.metadata_error));
  if (!m.read_errors.empty()) {
    const auto& [where, msg] = m.read_errors.front();
    // The wheel reader's messages already start with the wheel's path.
    const bool named = msg.rfind(where, 0) == 0 || msg.rfind(m.path + ":", 0) == 0;
    return Error(named ? msg : where + ": " + msg);
  }
  return std::move(m);
}

Expected<WheelDiff> diff_wheels(const std::string& old_path, const std::string& new_path) {
  auto a = read_diff_wheel(old_path);
  if (!a) return a.error();
  auto b = read_diff_wheel(new_path);
  if (!b) return b.error();
  return diff_models(*a, *b);
}

std::optional<GrowthLimit> parse_growth_limit(std::string_view text) {
  GrowthLimit g;
  g.text = std::string(text);
  std::string_view t = text;
  while (!t.empty() && t.front() == ' ') t.remove_prefix(1);
  while (!t.empty() && t.back() == ' ') t.remove_suffix(1);
  if (t.empty()) return std::nullopt;
  if (t.back() == '%') {
    std::string num(t.substr(0, t.size() - 1));
    if (num.empty() || num.find_first_not_of("0123456789.") != std::string::npos ||
        std::count(num.begin(), num.end(), '.') > 1 || num == ".")
      return std::nullopt;
    double v = std::strtod(num.c_str(), nullptr);
    if (!std::isfinite(v)) return std::nullopt;
    g.percent = v;
    return g;
  }
  auto b = check::parse_size(t);
  if (!b) return std::nullopt;
  g.bytes = *b;
  return g;
}

bool exceeds(const GrowthLimit& limit, uint64_t old_size, uint64_t new_size) {
  if (new_size <= old_size) return false;
  uint64_t growth = new_size - old_size;
  if (limit.bytes) return growth > *limit.bytes;
  if (limit.percent) {
    if (old_size == 0) return true;
    return static_cast<double>(growth) * 100.0 > *limit.percent * static_cast<double>(old_size);
  }
  return false;
}

}  // namespace cuwheel::diff
