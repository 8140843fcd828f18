// Requirement resolution inside one RPM repository for `cuwheel toolkit
// lock`; see include/cuwheel/toolkit/repo.h for the rules.
#include <algorithm>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "cuwheel/toolkit/repo.h"

namespace cuwheel::toolkit {

namespace {

bool starts_with(const std::string& s, std::string_view p) { return s.compare(0, p.size(), p) == 0; }
bool ends_with(const std::string& s, std::string_view p) {
  return s.size() >= p.size() && s.compare(s.size() - p.size(), p.size(), p) == 0;
}

// "12.9" -> "-12-9".
std::string release_suffix(const std::string& release) {
  std::string s = "-" + release;
  std::replace(s.begin(), s.end(), '.', '-');
  return s;
}

// Names NVIDIA's CUDA repository owns: a requirement on one of these that
// the repository cannot meet is a broken pin, not something the system
// should provide.
bool nvidia_namespace(const std::string& name) {
  static const char* prefixes[] = {"cuda-", "libcu", "libnv", "libnpp", "nvidia-", "nsight-", "gds-"};
  for (const char* p : prefixes)
    if (starts_with(name, p)) return true;
  return false;
}

// Orders packages for the lock: name, arch, EVR.
bool lock_order(const Package& a, const Package& b) {
  if (a.name != b.name) return a.name < b.name;
  if (a.arch != b.arch) return a.arch < b.arch;
  return compare_evr(a.evr, b.evr) < 0;
}

Dependency self_provide(const Package& p) {
  Dependency d;
  d.name = p.name;
  d.flags = DepFlags::kEq;
  d.evr = p.evr;
  return d;
}

// Does package p meet requirement r?
bool provides(const Package& p, const Dependency& r) {
  if (!r.name.empty() && r.name[0] == '/') {
    if (std::find(p.files.begin(), p.files.end(), r.name) != p.files.end()) return true;
  }
  if (p.name == r.name && range_satisfies(self_provide(p), r)) return true;
  for (const Dependency& d : p.provides)
    if (d.name == r.name && range_satisfies(d, r)) return true;
  return false;
}

class Index {
 public:
  Index(const Repository& repo, const std::string& arch) {
    for (size_t i = 0; i < repo.packages.size(); ++i) {
      const Package& p = repo.packages[i];
      if (p.arch != arch && p.arch != "noarch") continue;
      by_name_[p.name].push_back(i);
      by_token_[p.name].push_back(i);
      for (const Dependency& d : p.provides)
        if (d.name != p.name) by_token_[d.name].push_back(i);
      for (const std::string& f : p.files) by_token_[f].push_back(i);
    }
    for (auto& [k, v] : by_token_) {
      std::sort(v.begin(), v.end());
      v.erase(std::unique(v.begin(), v.end()), v.end());
    }
  }
  const std::vector<size_t>& named(const std::string& n) const { return find(by_name_, n); }
  const std::vector<size_t>& providing(const std::string& token) const { return find(by_token_, token); }

 private:
  static const std::vector<size_t>& find(const std::unordered_map<std::string, std::vector<size_t>>& m,
                                         const std::string& k) {
    static const std::vector<size_t> none;
    auto it = m.find(k);
    return it == m.end() ? none : it->second;
  }
  std::unordered_map<std::string, std::vector<size_t>> by_name_, by_token_;
};

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? sep : "") + v[i];
  return out;
}

bool valid_location(const std::string& loc) {
  if (loc.empty() || loc[0] == '/' || loc.find("://") != std::string::npos) return false;
  size_t start = 0;
  while (start <= loc.size()) {
    size_t end = loc.find('/', start);
    if (end == std::string::npos) end = loc.size();
    if (loc.compare(start, end - start, "..") == 0) return false;
    start = end + 1;
  }
  return true;
}

}  // namespace

std::string release_package_name(const std::string& name, const std::string& release) {
  std::string suffix = release_suffix(release);
  if (ends_with(name, suffix)) return name;
  return name + suffix;
}

std::vector<std::string> releases_with(const Repository& repo, const std::string& base) {
  // base-X-Y with X and Y decimal.
  std::set<std::string> found;
  std::string prefix = base + "-";
  for (const Package& p : repo.packages) {
    if (!starts_with(p.name, prefix)) continue;
    std::string rest = p.name.substr(prefix.size());
    size_t dash = rest.find('-');
    if (dash == std::string::npos || dash == 0 || dash + 1 == rest.size()) continue;
    std::string x = rest.substr(0, dash), y = rest.substr(dash + 1);
    auto digits = [](const std::string& s) {
      return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
    };
    if (digits(x) && digits(y)) found.insert(x + "." + y);
  }
  std::vector<std::string> out(found.begin(), found.end());
  std::sort(out.begin(), out.end(), [](const std::string& a, const std::string& b) { return rpmvercmp(a, b) < 0; });
  return out;
}

namespace {

// What one resolution pass gives, whether it succeeds or not.
struct Outcome {
  Resolution res;
  std::vector<std::string> problems;
  std::set<std::string> unmet_files;  // file requirements nothing in the repository met
};

Outcome resolve_closure(const Repository& repo, const ResolveRequest& req) {
  Outcome out;
  Index index(repo, req.arch);
  const std::string suffix = release_suffix(req.release);
  std::vector<std::string>& problems = out.problems;
  std::map<std::string, size_t> chosen;           // name -> package index
  std::map<std::string, std::string> reason;      // name -> why
  std::set<std::string> external;
  std::deque<size_t> queue;

  // The better of two candidate packages for a requirement.
  auto better = [&](size_t a, size_t b) {
    const Package& pa = repo.packages[a];
    const Package& pb = repo.packages[b];
    bool ra = ends_with(pa.name, suffix), rb = ends_with(pb.name, suffix);
    if (ra != rb) return ra;
    if (int c = compare_evr(pa.evr, pb.evr)) return c > 0;
    bool ma = pa.arch == req.arch, mb = pb.arch == req.arch;
    if (ma != mb) return ma;
    if (pa.name != pb.name) return pa.name < pb.name;
    return a < b;
  };
  auto choose = [&](size_t i, const std::string& why) {
    const Package& p = repo.packages[i];
    auto it = chosen.find(p.name);
    if (it != chosen.end()) {
      if (it->second != i)
        problems.push_back(p.name + ": two versions needed at once: " + format_evr(repo.packages[it->second].evr) +
                           " (" + reason[p.name] + ") and " + format_evr(p.evr) + " (" + why + ")");
      return;
    }
    chosen[p.name] = i;
    reason[p.name] = why;
    queue.push_back(i);
  };

  Resolution& res = out.res;
  std::set<std::string> requested;
  for (const std::string& n : req.packages) requested.insert(release_package_name(n, req.release));
  res.requested.assign(requested.begin(), requested.end());

  for (const std::string& name : res.requested) {
    const std::vector<size_t>& cands = index.named(name);
    if (cands.empty()) {
      // Present, but only for other architectures: say so, not "missing".
      std::set<std::string> other_arches;
      for (const Package& p : repo.packages)
        if (p.name == name) other_arches.insert(p.arch);
      if (!other_arches.empty()) {
        problems.push_back(name + " is not in the repository for arch " + req.arch + " (it has " +
                           join(std::vector<std::string>(other_arches.begin(), other_arches.end()), ", ") + ")");
        continue;
      }
      std::string base = ends_with(name, suffix) ? name.substr(0, name.size() - suffix.size()) : name;
      std::vector<std::string> rel = releases_with(repo, base);
      std::string msg = name + " not in repository";
      if (!rel.empty())
        msg += "; releases with " + base + ": " + join(rel, ", ");
      else
        msg += "; no release of " + base + " either";
      problems.push_back(msg);
      continue;
    }
    size_t best = cands[0];
    for (size_t c : cands)
      if (compare_evr(repo.packages[c].evr, repo.packages[best].evr) > 0 ||
          (compare_evr(repo.packages[c].evr, repo.packages[best].evr) == 0 &&
           repo.packages[c].arch == req.arch && repo.packages[best].arch != req.arch))
        best = c;
    choose(best, "requested");
  }

  while (!queue.empty()) {
    size_t i = queue.front();
    queue.pop_front();
    const Package& p = repo.packages[i];
    for (const Dependency& r : p.requires_) {
      if (starts_with(r.name, "rpmlib(")) continue;  // rpm's own feature markers
      if (provides(p, r)) continue;                  // self-provided
      bool met = false;
      for (const auto& [n, ci] : chosen)
        if (provides(repo.packages[ci], r)) {
          met = true;
          break;
        }
      if (met) continue;
      const std::vector<size_t>& cands = index.providing(r.name);
      std::optional<size_t> best;
      for (size_t c : cands)
        if (provides(repo.packages[c], r) && (!best || better(c, *best))) best = c;
      std::string why = format_dependency(r) + " (required by " + p.name + ")";
      if (best) {
        choose(*best, why);
        continue;
      }
      if (r.name[0] == '/' || r.name[0] == '(' || !nvidia_namespace(r.name)) {
        if (r.name[0] == '/') out.unmet_files.insert(r.name);
        external.insert(format_dependency(r));
        continue;
      }
      std::string msg = format_dependency(r) + " (required by " + p.name + "-" + format_evr(p.evr) +
                        ") is not in the repository";
      std::vector<std::string> have;
      for (size_t c : cands) have.push_back(repo.packages[c].name + "-" + format_evr(repo.packages[c].evr));
      std::sort(have.begin(), have.end());
      if (!have.empty()) msg += "; it has " + join(have, ", ");
      problems.push_back(msg);
    }
  }

  for (const auto& [n, i] : chosen) {
    const Package& p = repo.packages[i];
    if (p.checksum_type != "sha256" || p.checksum.size() != 64)
      problems.push_back(p.name + ": the repository gives a " + (p.checksum_type.empty() ? "missing" : p.checksum_type) +
                         " checksum; the lock needs sha256");
    if (!valid_location(p.location))
      problems.push_back(p.name + ": location '" + p.location + "' is not a path inside the repository");
    res.packages.push_back(p);
  }
  std::sort(res.packages.begin(), res.packages.end(), lock_order);
  for (const Package& p : res.packages) res.reasons.push_back(reason[p.name]);
  res.external.assign(external.begin(), external.end());
  return out;
}

// Every file requirement of a package of `arch` or noarch that no file
// such a package lists (in primary.xml, or already from filelists) meets.
std::vector<std::string> unlisted_file_requirements(const Repository& repo, const std::string& arch) {
  std::unordered_set<std::string> listed;
  std::set<std::string> required;
  for (const Package& p : repo.packages) {
    if (p.arch != arch && p.arch != "noarch") continue;
    listed.insert(p.files.begin(), p.files.end());
    for (const Dependency& d : p.requires_)
      if (!d.name.empty() && d.name[0] == '/') required.insert(d.name);
  }
  std::vector<std::string> out;
  for (const std::string& f : required)
    if (!listed.count(f)) out.push_back(f);
  return out;
}

}  // namespace

Expected<Resolution> resolve(const Repository& repo, const ResolveRequest& req) {
  Outcome out = resolve_closure(repo, req);
  if (!out.problems.empty()) return Error(join(out.problems, "\n"));
  return std::move(out.res);
}

Expected<FilelistsRead> read_filelists_if_needed(Repository& repo, const ResolveRequest& req,
                                                 uint64_t max_xml_bytes) {
  FilelistsRead none;
  none.needed = !resolve_closure(repo, req).unmet_files.empty();
  if (repo.filelists) none.location = repo.filelists->location;
  if (!none.needed || !repo.filelists) return none;
  return load_filelists(repo, unlisted_file_requirements(repo, req.arch), max_xml_bytes);
}

}  // namespace cuwheel::toolkit
