// What a wheel says about the CUDA it needs. See model/requirements.h.
#include "cuwheel/model/requirements.h"

#include <cctype>
#include <initializer_list>
#include <set>

#include "cuwheel/model/loading.h"
#include "cuwheel/wheel/pep508.h"

namespace cuwheel::model {

bool Requirements::has(const std::string& d) const {
  if (find(d)) return true;
  for (const auto& x : implied)
    if (x.distribution == d) return true;
  return false;
}

namespace {

// What NVIDIA's component packages themselves require (Requires-Dist of
// nvidia-cudnn-cu12 9.28.0.42, nvidia-cudnn-cu13 9.28.1.4,
// nvidia-cusolver-cu12 11.7.5.82, nvidia-cusolver 12.4.1.2,
// nvidia-cusparse(-cu12) 12.9.4.2 / 12.5.10.65, nvidia-cufft(-cu12)
// 12.5.0.14 / 11.4.1.4, read from PyPI): declaring one installs these too.
struct NvidiaRequires {
  const char* distribution;
  std::initializer_list<const char*> requires_;
};
const NvidiaRequires kNvidiaRequires[] = {
    {"nvidia-cudnn-cu12", {"nvidia-cublas-cu12"}},
    {"nvidia-cudnn-cu13", {"nvidia-cublas"}},
    {"nvidia-cusolver-cu12", {"nvidia-cublas-cu12", "nvidia-nvjitlink-cu12", "nvidia-cusparse-cu12"}},
    {"nvidia-cusolver", {"nvidia-cublas", "nvidia-nvjitlink", "nvidia-cusparse"}},
    {"nvidia-cusparse-cu12", {"nvidia-nvjitlink-cu12"}},
    {"nvidia-cusparse", {"nvidia-nvjitlink"}},
    {"nvidia-cufft-cu12", {"nvidia-nvjitlink-cu12"}},
    {"nvidia-cufft", {"nvidia-nvjitlink"}},
};

}  // namespace

const Declared* Requirements::find(const std::string& d) const {
  for (const auto& x : declared)
    if (x.distribution == d) return &x;
  return nullptr;
}

namespace {
// The CUDA majors a cuda-toolkit requirement's version names: the first
// number of its specifier ("==13.0.2" -> 13); both when it has none.
std::vector<int> toolkit_majors(const Requirement& r) {
  std::string spec = r.specifier.to_string();
  for (size_t i = 0; i < spec.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(spec[i]))) continue;
    int v = 0;
    while (i < spec.size() && std::isdigit(static_cast<unsigned char>(spec[i]))) v = v * 10 + (spec[i++] - '0');
    if (v == 12 || v == 13) return {v};
    break;
  }
  return {12, 13};
}
}  // namespace

Requirements read_requirements(const CheckModel& m) {
  Requirements out;
  if (!m.metadata) return out;
  for (const auto& text : m.metadata->requires_dist) {
    auto r = Requirement::parse(text);
    if (!r) continue;
    std::string name = r->normalized_name();
    auto behind = r->behind_extras();
    if (name == "cuda-toolkit") {
      auto majors = toolkit_majors(*r);
      for (int major : majors) {
        for (const auto& extra : r->extras) {
          std::string e = normalize_name(extra);
          if (e == "all") {
            for (const auto& d : distributions_for_major(major))
              if (!d.toolkit_extra.empty())
                out.declared.push_back({std::string(d.name), major, text, behind, majors.size() == 1, true});
            continue;
          }
          auto te = cuda_toolkit_extra(e, major);
          if (te && !te->distribution.empty())
            out.declared.push_back({std::string(te->distribution), major, text, behind, majors.size() == 1, false});
        }
      }
      continue;
    }
    auto d = lookup_distribution(name);
    if (!d) continue;
    if (d->deprecated()) {
      out.deprecated.emplace_back(text, *d);
      continue;
    }
    out.declared.push_back({std::string(d->name), d->cuda_major, text, behind});
  }
  for (const auto& d : out.declared)
    for (const auto& r : kNvidiaRequires)
      if (d.distribution == r.distribution)
        for (const char* dep : r.requires_)
          if (auto dd = lookup_distribution(dep))
            out.implied.push_back({std::string(dd->name), dd->cuda_major, d.distribution + " requires " + dep,
                                   d.behind_extras, d.major_certain, false});
  return out;
}

std::string wheel_name(const CheckModel& m) {
  if (m.metadata && !m.metadata->name.empty()) return normalize_name(m.metadata->name);
  if (m.parsed_filename) return normalize_name(m.parsed_filename->distribution);
  return "";
}

std::string origin_path_to(const std::string& member, const std::string& dir) {
  // The member's folder as installed (a .data/purelib or platlib prefix
  // removed), split into components.
  const std::string installed = install_path(member).value_or(member);
  const std::string from = installed.substr(0, installed.rfind('/') == std::string::npos ? 0 : installed.rfind('/'));
  auto split = [](const std::string& p) {
    std::vector<std::string> parts;
    size_t i = 0;
    while (i < p.size()) {
      size_t j = p.find('/', i);
      if (j == std::string::npos) j = p.size();
      if (j > i && p.compare(i, j - i, ".") != 0) parts.push_back(p.substr(i, j - i));
      i = j + 1;
    }
    return parts;
  };
  const auto a = split(from), b = split(dir);
  size_t common = 0;
  while (common < a.size() && common < b.size() && a[common] == b[common]) ++common;
  std::string out = "$ORIGIN";
  for (size_t i = common; i < a.size(); ++i) out += "/..";
  for (size_t i = common; i < b.size(); ++i) out += "/" + b[i];
  return out;
}

namespace {
// "cu12" -> 12, "cu130" -> 13, "cuda12x" -> 12, "cuda13" -> 13.
std::optional<int> cuda_token(const std::string& t) {
  size_t i;
  if (t.rfind("cuda", 0) == 0) i = 4;
  else if (t.rfind("cu", 0) == 0) i = 2;
  else return std::nullopt;
  size_t digits = 0;
  while (i + digits < t.size() && std::isdigit(static_cast<unsigned char>(t[i + digits]))) ++digits;
  if (digits < 2 || digits > 3) return std::nullopt;
  std::string tail = t.substr(i + digits);
  if (!tail.empty() && tail != "x") return std::nullopt;
  int major = std::stoi(t.substr(i, 2));
  if (major < 9 || major > 20) return std::nullopt;
  return major;
}
}  // namespace

std::optional<int> name_major(const CheckModel& m) { return name_major_of(wheel_name(m)); }

std::optional<int> name_major_of(const std::string& distribution) {
  const std::string& n = distribution;
  size_t i = 0;
  while (i <= n.size()) {
    size_t j = n.find('-', i);
    if (j == std::string::npos) j = n.size();
    if (auto v = cuda_token(n.substr(i, j - i))) return v;
    i = j + 1;
  }
  return std::nullopt;
}

std::optional<int> version_major(const CheckModel& m) {
  std::string v = m.metadata ? m.metadata->version : (m.parsed_filename ? m.parsed_filename->version : "");
  size_t plus = v.find('+');
  if (plus == std::string::npos) return std::nullopt;
  std::string local = v.substr(plus + 1);
  for (auto& c : local) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  size_t i = 0;
  while (i <= local.size()) {
    size_t j = local.find_first_of("._-", i);
    if (j == std::string::npos) j = local.size();
    if (auto mj = cuda_token(local.substr(i, j - i))) return mj;
    i = j + 1;
  }
  return std::nullopt;
}

bool provided_by_self(const CheckModel& m, const std::string& member, const std::string& soname) {
  std::string self = wheel_name(m);
  if (self.empty()) return false;
  auto c = classify_soname(soname);
  for (int major : {12, 13})
    if (const Provision* p = c.provision(major); p && p->distribution == self) return true;
  auto d = lookup_distribution(self);
  if (!d || d->directory.empty()) return false;
  auto p = install_path(member);
  std::string dir(d->directory);
  // NVIDIA's own wheels: files under their folder (or its parent, e.g.
  // nvidia/cu13/ for headers and tools) belong to them.
  std::string top = dir_of(dir);
  return p && (p->rfind(dir + "/", 0) == 0 || (!top.empty() && p->rfind(top + "/", 0) == 0));
}

std::optional<int> claimed_major(const CheckModel& m, std::optional<int> policy_major, const Requirements& reqs) {
  if (policy_major) return policy_major;
  if (auto v = name_major(m)) return v;
  if (auto v = version_major(m)) return v;
  std::set<int> any;
  for (const auto& d : reqs.declared)
    if (d.major_certain) any.insert(d.cuda_major);
  if (any.size() == 1) return *any.begin();
  return std::nullopt;
}

std::vector<int> candidate_majors(const LibraryClass& c, std::optional<int> claim) {
  std::vector<int> out;
  for (int major : {12, 13}) {
    if (!c.provision(major)) continue;
    if (!c.majors.empty() && !c.majors.contains(major)) continue;
    out.push_back(major);
  }
  if (claim && out.size() > 1)
    for (int major : out)
      if (major == *claim) return {major};
  return out;
}

}  // namespace cuwheel::model
