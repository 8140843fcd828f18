// How the dynamic loader finds the libraries of one input. See
// include/cuwheel/model/loading.h.
#include "cuwheel/model/loading.h"

#include <fnmatch.h>

#include <deque>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include "cuwheel/base/bytes.h"
#include "cuwheel/cuda/libclass.h"

namespace cuwheel::model {

std::string file_name(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

namespace {
constexpr size_t kNone = std::numeric_limits<size_t>::max();
}  // namespace

std::optional<std::string> install_path(const std::string& member) {
  size_t slash = member.find('/');
  if (slash != std::string::npos) {
    std::string top = member.substr(0, slash);
    if (top.size() > 5 && top.compare(top.size() - 5, 5, ".data") == 0) {
      std::string rest = member.substr(slash + 1);
      for (const char* scheme : {"purelib/", "platlib/"})
        if (rest.rfind(scheme, 0) == 0) return rest.substr(std::string(scheme).size());
      return std::nullopt;
    }
  }
  return member;
}

std::optional<std::string> normalize_relative(const std::string& path) {
  std::vector<std::string> parts;
  size_t i = 0;
  while (i <= path.size()) {
    size_t j = path.find('/', i);
    if (j == std::string::npos) j = path.size();
    std::string p = path.substr(i, j - i);
    if (p == "..") {
      if (parts.empty()) return std::nullopt;
      parts.pop_back();
    } else if (!p.empty() && p != ".") {
      parts.push_back(p);
    }
    i = j + 1;
  }
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : "/") + p;
  return out;
}

std::string dir_of(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

namespace {
SearchEntry resolve(const std::string& raw, const std::string& tag, const std::optional<std::string>& where) {
  SearchEntry e;
  e.raw = raw;
  e.tag = tag;
  std::string rest;
  if (raw.empty()) {
    e.kind = SearchEntry::Kind::empty;
    return e;
  }
  if (raw.rfind("$ORIGIN", 0) == 0) rest = raw.substr(7);
  else if (raw.rfind("${ORIGIN}", 0) == 0) rest = raw.substr(9);
  else {
    e.kind = raw[0] == '/' ? SearchEntry::Kind::absolute : SearchEntry::Kind::relative;
    return e;
  }
  e.kind = SearchEntry::Kind::origin;
  if (!rest.empty() && rest[0] != '/') {  // "$ORIGINfoo": not a variable the loader knows
    e.kind = SearchEntry::Kind::relative;
    return e;
  }
  if (!where) return e;
  auto n = normalize_relative(*where + rest);
  if (!n) e.escapes = true;
  else e.dir = *n;
  return e;
}

void split_into(std::vector<SearchEntry>& out, const std::vector<std::string>& entries, const std::string& tag,
                const std::optional<std::string>& where) {
  for (const auto& raw : entries) out.push_back(resolve(raw, tag, where));
}
}  // namespace

std::vector<SearchEntry> search_entries(const LibraryModel& lib, const std::optional<std::string>& where) {
  std::vector<SearchEntry> out;
  if (!lib.load.runpath.empty()) split_into(out, lib.load.runpath, "DT_RUNPATH", where);
  else split_into(out, lib.load.rpath, "DT_RPATH", where);
  return out;
}

std::vector<SearchEntry> all_entries(const LibraryModel& lib, const std::optional<std::string>& where) {
  std::vector<SearchEntry> out;
  split_into(out, lib.load.rpath, "DT_RPATH", where);
  split_into(out, lib.load.runpath, "DT_RUNPATH", where);
  return out;
}

bool Tree::has_file(const std::string& dir, const std::string& name) const {
  auto it = files.find(dir);
  return it != files.end() && it->second.count(name) > 0;
}

Tree build_tree(const CheckModel& m) {
  Tree t;
  auto add = [&](const std::string& member) -> std::optional<std::string> {
    auto p = install_path(member);
    if (!p || p->empty() || p->back() == '/') return std::nullopt;
    std::string dir = dir_of(*p);
    t.files[dir].insert(file_name(*p));
    for (std::string d = dir;; d = dir_of(d)) {
      t.dirs.insert(d);
      if (d.empty()) break;
    }
    return dir;
  };
  for (const auto& mm : m.members) add(mm.name);
  for (const auto& lib : m.libraries) {
    if (lib.member.empty() || !lib.archive_member.empty()) continue;
    auto dir = add(lib.member);
    if (dir && lib.load.soname) t.files[*dir].insert(*lib.load.soname);
  }
  return t;
}

bool loadable(const LibraryModel& lib) { return lib.is_elf && lib.archive_member.empty() && lib.load.type != 1; }

bool nvidia_folder_has(const std::string& dir, const std::string& name) {
  for (int major : {12, 13})
    for (const auto& d : distributions_for_major(major)) {
      if (d.directory != dir) continue;
      for (auto s : d.sonames)
        if (fnmatch(std::string(s).c_str(), name.c_str(), 0) == 0) return true;
    }
  auto c = classify_soname(name);
  if (c.kind != LibraryKind::cuda_toolkit) return false;
  for (int major : {12, 13}) {
    const Provision* p = c.provision(major);
    if (p && p->directory == dir && (c.majors.empty() || c.majors.contains(major))) return true;
  }
  return false;
}

namespace {

// fnmatch-like: '*' matches any run; a printf conversion (%s, %d, %u, %i,
// %x, %ld, %zu) in `pat` matches any run too.
bool glob_match(std::string_view pat, std::string_view name) {
  std::string p;
  for (size_t i = 0; i < pat.size(); ++i) {
    if (pat[i] == '%' && i + 1 < pat.size()) {
      size_t j = i + 1;
      while (j < pat.size() && (pat[j] == 'l' || pat[j] == 'z')) ++j;
      if (j < pat.size() && std::string_view("sduix").find(pat[j]) != std::string_view::npos) {
        p += '*';
        i = j;
        continue;
      }
    }
    p += pat[i];
  }
  // Iterative '*' matching with one backtrack point.
  size_t a = 0, b = 0, star = std::string::npos, mark = 0;
  while (b < name.size()) {
    if (a < p.size() && p[a] == '*') {
      star = a++;
      mark = b;
    } else if (a < p.size() && p[a] == name[b]) {
      ++a;
      ++b;
    } else if (star != std::string::npos) {
      a = star + 1;
      b = ++mark;
    } else {
      return false;
    }
  }
  while (a < p.size() && p[a] == '*') ++a;
  return a == p.size();
}

}  // namespace

bool python_extension_module(const LibraryModel& lib, const std::string& file) {
  if (file.find(".cpython-") != std::string::npos || file.find(".abi3.") != std::string::npos ||
      file.find(".pypy") != std::string::npos)
    return true;
  for (const auto& e : lib.exports)
    if (e.rfind("PyInit_", 0) == 0) return true;
  return false;
}

namespace {

// What names plugins, gathered once per model: the exact library names
// other libraries hold, and the printf patterns with a literal prefix of at
// least 6 bytes ("nvshmem_transport_%s.so.%d"; "%s.so" or "lib%s.so" would
// name every library), each kept once with the first library that holds it.
struct PluginNames {
  std::map<std::string, std::pair<std::string, size_t>> exact;  // name -> (member, library index)
  std::vector<std::tuple<std::string, std::string, std::string, size_t>> patterns;  // prefix, pattern, member, index
  std::vector<const PythonLoad*> families;  // f-string families naming two or more libraries of the input
};

PluginNames plugin_names(const CheckModel& m) {
  PluginNames out;
  std::set<std::string> seen;
  for (size_t j = 0; j < m.libraries.size(); ++j)
    for (const auto& str : m.libraries[j].library_strings) {
      const size_t pct = str.find('%');
      if (pct == std::string::npos) {
        out.exact.emplace(str, std::make_pair(m.libraries[j].member, j));
      } else if (pct >= 6 && seen.insert(str).second) {
        out.patterns.emplace_back(str.substr(0, pct), str, m.libraries[j].member, j);
      }
    }
  // An f-string family is evidence of alternatives (bitsandbytes' backends)
  // only when it names at least two libraries of the input.
  for (const auto& l : m.python_loads) {
    if (l.kind != PythonLoad::Kind::file_pattern) continue;
    size_t n = 0;
    for (const auto& lib : m.libraries) {
      if (lib.member.empty()) continue;
      auto w = install_path(lib.member);
      if (w && glob_match(l.name, file_name(*w)) && ++n >= 2) break;
    }
    if (n >= 2) out.families.push_back(&l);
  }
  return out;
}

std::string plugin_evidence_in(const CheckModel& m, size_t i, const std::set<std::string>& needed_names,
                               const PluginNames& names) {
  const auto& libs = m.libraries;
  if (i >= libs.size() || !loadable(libs[i]) || libs[i].member.empty()) return "";
  const LibraryModel& lib = libs[i];
  auto where = install_path(lib.member);
  if (!where) return "";
  const std::string file = file_name(*where);
  if (python_extension_module(lib, file)) return "";
  if (needed_names.count(file) || (lib.load.soname && needed_names.count(*lib.load.soname))) return "";
  if (auto it = names.exact.find(file); it != names.exact.end() && it->second.second != i)
    return it->second.first + " holds the name \"" + file + "\"";
  for (const auto& [prefix, pattern, member, j] : names.patterns)
    if (j != i && file.compare(0, prefix.size(), prefix) == 0 && glob_match(pattern, file))
      return member + " holds the name \"" + pattern + "\"";
  // A file name the Python code quotes is not enough: a package that loads
  // its core library with ctypes at import is no plugin.
  for (const PythonLoad* l : names.families)
    if (glob_match(l->name, file)) return l->describe() + " names it among its alternatives";
  return "";
}

std::set<std::string> all_needed(const CheckModel& m) {
  std::set<std::string> out;
  for (const auto& lib : m.libraries)
    if (loadable(lib)) out.insert(lib.load.needed.begin(), lib.load.needed.end());
  return out;
}

}  // namespace

std::string plugin_evidence(const CheckModel& m, size_t i) {
  return plugin_evidence_in(m, i, all_needed(m), plugin_names(m));
}

LoadResolution resolve_loads(const CheckModel& m, const Tree& tree) {
  using How = NeededResolution::How;
  const auto& libs = m.libraries;
  LoadResolution out;
  out.needed.resize(libs.size());
  out.plugin.resize(libs.size());
  {
    const std::set<std::string> needed = all_needed(m);
    const PluginNames names = plugin_names(m);
    for (size_t i = 0; i < libs.size(); ++i) out.plugin[i] = plugin_evidence_in(m, i, needed, names);
  }

  // The libraries that take part, their folders and search entries, and
  // which library a (folder, name) pair is: file name or DT_SONAME.
  struct Info {
    bool in = false;
    std::string dir;
    std::vector<SearchEntry> rpath, runpath;
  };
  std::vector<Info> info(libs.size());
  std::map<std::pair<std::string, std::string>, size_t> at;
  for (size_t i = 0; i < libs.size(); ++i) {
    const LibraryModel& lib = libs[i];
    if (!loadable(lib) || lib.member.empty()) continue;
    auto where = install_path(lib.member);
    if (!where) continue;
    Info& in = info[i];
    in.in = true;
    in.dir = dir_of(*where);
    split_into(in.rpath, lib.load.rpath, "DT_RPATH", in.dir);
    split_into(in.runpath, lib.load.runpath, "DT_RUNPATH", in.dir);
    at.emplace(std::make_pair(in.dir, file_name(*where)), i);
    if (lib.load.soname) at.emplace(std::make_pair(in.dir, *lib.load.soname), i);
    // Names the loader never searches for in the input.
    for (const auto& n : lib.load.needed) {
      NeededResolution r;
      auto c = classify_soname(n);
      if (n.find('/') != std::string::npos) r.how = How::as_path;
      else if (c.kind == LibraryKind::system) r.how = How::system;
      else if (c.kind == LibraryKind::nvidia_driver) r.how = How::driver;
      out.needed[i].push_back(r);
    }
  }

  // Roots: what Python or ctypes opens by path. A library that another one
  // of the input NEEDs is reached through it; one that none NEEDs (an
  // extension module, a library a package preloads) is a root. Libraries
  // only reachable in a cycle are roots too (below).
  std::set<std::string> needed_names;
  for (size_t i = 0; i < libs.size(); ++i)
    if (info[i].in)
      for (const auto& n : libs[i].load.needed) needed_names.insert(n);
  std::vector<size_t> roots;
  for (size_t i = 0; i < libs.size(); ++i) {
    if (!info[i].in) continue;
    const LibraryModel& lib = libs[i];
    bool needed = needed_names.count(file_name(*install_path(lib.member))) ||
                  (lib.load.soname && needed_names.count(*lib.load.soname));
    if (!needed) roots.push_back(i);
  }

  std::vector<bool> reached(libs.size(), false);
  auto search = [&](const std::vector<SearchEntry>& entries, const std::string& name,
                    NeededResolution& r, How in_input, How in_nvidia) -> size_t {
    for (const auto& e : entries) {
      if (e.kind != SearchEntry::Kind::origin || e.escapes) continue;
      if (tree.has_file(e.dir, name)) {
        r.how = in_input;
        r.entry = e.raw;
        r.tag = e.tag;
        r.dir = e.dir;
        auto it = at.find({e.dir, name});
        return it == at.end() ? kNone : it->second;
      }
      if (nvidia_folder_has(e.dir, name)) {
        r.how = in_nvidia;
        r.entry = e.raw;
        r.tag = e.tag;
        r.dir = e.dir;
        return kNone;
      }
    }
    return kNone;
  };

  auto load_from = [&](size_t root) {
    std::vector<size_t> loader(libs.size(), kNone);
    std::vector<bool> mapped(libs.size(), false);
    std::map<std::string, size_t> by_name;
    std::vector<size_t>& order = out.link_maps.emplace_back();
    auto map = [&](size_t j, size_t from) {
      order.push_back(j);
      mapped[j] = true;
      reached[j] = true;
      loader[j] = from;
      by_name.emplace(file_name(*install_path(libs[j].member)), j);
      if (libs[j].load.soname) by_name.emplace(*libs[j].load.soname, j);
    };
    std::deque<size_t> queue;
    map(root, kNone);
    queue.push_back(root);
    while (!queue.empty()) {
      size_t l = queue.front();
      queue.pop_front();
      const LibraryModel& lib = libs[l];
      for (size_t k = 0; k < lib.load.needed.size(); ++k) {
        NeededResolution& best = out.needed[l][k];
        if (best.how == How::system || best.how == How::driver || best.how == How::as_path) continue;
        const std::string& name = lib.load.needed[k];
        NeededResolution r;
        size_t found = kNone;
        auto mapped_as = by_name.find(name);
        if (mapped_as == by_name.end()) {
          // Step 3: DT_RPATH of the requester and of its loaders, unless
          // the requester has DT_RUNPATH; step 5: its own DT_RUNPATH.
          if (info[l].runpath.empty()) {
            found = search(info[l].rpath, name, r, How::own_path, How::nvidia_folder);
            // glibc reads each loader's DT_RPATH whatever its DT_RUNPATH
            // (cache_rpath() in dl-load.c looks at DT_RPATH alone); only
            // the executable's is dropped when it has DT_RUNPATH.
            for (size_t a = loader[l]; r.how == How::unresolved && a != kNone; a = loader[a]) {
              found = search(info[a].rpath, name, r, How::loader_rpath, How::loader_rpath);
              if (r.how == How::loader_rpath) r.by = libs[a].member;
            }
          } else {
            found = search(info[l].runpath, name, r, How::own_path, How::nvidia_folder);
          }
          if (found != kNone && !mapped[found]) {
            map(found, l);
            queue.push_back(found);
          }
        } else {
          // Step 1: already in the link map. Say how the requester would
          // find it by itself when it can; else that it was mapped first.
          NeededResolution own;
          search(info[l].runpath.empty() ? info[l].rpath : info[l].runpath, name, own, How::own_path,
                 How::nvidia_folder);
          if (own.how != How::unresolved) {
            r = own;
          } else {
            r.how = How::loaded;
            r.by = libs[mapped_as->second].member;
            size_t via = loader[mapped_as->second];
            r.via = via == kNone ? std::string() : libs[via].member;
          }
        }
        if (r.how < best.how) best = r;
      }
    }
  };
  for (size_t r : roots) load_from(r);
  for (size_t i = 0; i < libs.size(); ++i)
    if (info[i].in && !reached[i]) load_from(i);
  return out;
}

}  // namespace cuwheel::model
