// `cuwheel repair`: plan and apply. See repair/repair.h.
#include "cuwheel/repair/repair.h"

#include <fcntl.h>
#include <fnmatch.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>

#include "cuwheel/base/bytes.h"
#include "cuwheel/base/digest.h"
#include "cuwheel/base/fileio.h"
#include "cuwheel/base/source.h"
#include "cuwheel/cuda/libclass.h"
#include "cuwheel/host/ldcache.h"
#include "cuwheel/model/loading.h"
#include "cuwheel/model/requirements.h"
#include "cuwheel/wheel/manylinux.h"
#include "cuwheel/wheel/pep508.h"
#include "cuwheel/wheel/writer.h"

#include <nlohmann/json.hpp>

namespace cuwheel::repair {

namespace {

using model::CheckModel;
using model::LibraryModel;
using How = model::NeededResolution::How;

constexpr uint16_t kEmX86_64 = 62, kEmAarch64 = 183, kEmPpc64 = 21, kEmS390 = 22;

std::string arch_of_machine(uint16_t machine) {
  switch (machine) {
    case kEmX86_64: return "x86_64";
    case kEmAarch64: return "aarch64";
    case kEmPpc64: return "ppc64le";
    case kEmS390: return "s390x";
    default: return "";
  }
}

// The architecture part of a Linux platform tag ("manylinux_2_28_x86_64",
// "manylinux2014_aarch64", "linux_x86_64" -> the arch), "" for others.
std::string arch_of_tag(const std::string& tag) {
  static const char* kArchs[] = {"x86_64", "aarch64", "ppc64le", "s390x", "i686", "armv7l", "riscv64"};
  if (tag.find("linux") == std::string::npos) return "";
  for (const char* a : kArchs) {
    const std::string suffix = std::string("_") + a;
    if (tag.size() > suffix.size() && tag.compare(tag.size() - suffix.size(), suffix.size(), suffix) == 0) return a;
  }
  return "";
}

// The driver's own sonames, for a renamed or unversioned copy's name
// (nvc_info.c loads these names; cuda-facts.md section 5).
std::string driver_soname(const std::string& name) {
  std::string original = grafted_original(name).value_or(name);
  const std::string stem = original.substr(0, original.find(".so"));
  static const std::pair<const char*, const char*> kSonames[] = {
      {"libcuda", "libcuda.so.1"},
      {"libnvidia-ml", "libnvidia-ml.so.1"},
      {"libnvidia-ptxjitcompiler", "libnvidia-ptxjitcompiler.so.1"},
      {"libnvidia-nvvm", "libnvidia-nvvm.so.4"},
      {"libcudadebugger", "libcudadebugger.so.1"},
      {"libnvidia-opencl", "libnvidia-opencl.so.1"},
      {"libnvcuvid", "libnvcuvid.so.1"},
      {"libnvidia-encode", "libnvidia-encode.so.1"},
      {"libnvidia-cfg", "libnvidia-cfg.so.1"},
      {"libnvidia-fbc", "libnvidia-fbc.so.1"},
      {"libnvoptix", "libnvoptix.so.1"},
  };
  for (const auto& [s, so] : kSonames)
    if (stem == s) return so;
  return original;
}

// Library stems whose pip package's version does not follow the soname's
// major (nvidia-nvtx-cu12 12.x ships libnvToolsExt.so.1, nvidia-cufile-cu12
// 1.x ships libcufile.so.0, nvidia-cuda-opencl-cu12 12.x ships
// libOpenCL.so.1): no cap is derived for them.
bool version_follows_soname(const std::string& soname) {
  static const char* kOthers[] = {"libnvToolsExt", "libnvtx3interop", "libcufile", "libcufile_rdma", "libOpenCL"};
  const std::string stem = soname.substr(0, soname.find(".so"));
  for (const char* o : kOthers)
    if (stem == o) return false;
  return true;
}

// The first number after ".so." ("libcudart.so.12" -> 12).
std::optional<int> soname_major(const std::string& soname) {
  size_t p = soname.find(".so.");
  if (p == std::string::npos) return std::nullopt;
  p += 4;
  int v = 0;
  size_t digits = 0;
  while (p < soname.size() && soname[p] >= '0' && soname[p] <= '9' && digits < 6) v = v * 10 + (soname[p++] - '0'), ++digits;
  if (digits == 0) return std::nullopt;
  return v;
}

// auditwheel's name for a grafted copy (repair.py copylib): the file name
// split at its first '.', the first 8 hex digits of the file's SHA-256
// between: libfoo.so.1 -> libfoo-0123abcd.so.1.
std::string graft_name(const std::string& name, ByteView bytes) {
  const auto d = sha256(bytes);
  static const char* kHex = "0123456789abcdef";
  std::string hex;
  for (size_t i = 0; i < 4; ++i) hex += std::string{kHex[d[i] >> 4], kHex[d[i] & 15]};
  const size_t dot = name.find('.');
  if (dot == std::string::npos) return name + "-" + hex;
  return name.substr(0, dot) + "-" + hex + name.substr(dot);
}

// The 8 hex digits a repair step put into a grafted copy's name
// (auditwheel's libcudart-53d54daa.so.12.6.68, torchvision's
// libcudart.3eda8113.so.13): the start of the SHA-256 of the file it
// copied, which auditwheel's SBOM names in each component's bom-ref
// ("pkg:rpm/...#53d54daa...").
std::optional<std::string> graft_hash(const std::string& file) {
  if (!grafted_original(file)) return std::nullopt;
  const size_t so = file.find(".so");
  if (so == std::string::npos || so < 9) return std::nullopt;
  const std::string h = file.substr(so - 8, 8);
  if (h.find_first_not_of("0123456789abcdef") != std::string::npos) return std::nullopt;
  return h;
}

// An SBOM (CycloneDX JSON, PEP 770's .dist-info/sboms/) without the
// components of the grafted copies whose hashes are given, nor the
// dependency entries naming them. nullopt when nothing changes or the
// file is not such JSON (it is then kept as it is).
std::optional<std::string> drop_sbom_components(std::string_view text, const std::set<std::string>& hashes) {
  auto doc = nlohmann::ordered_json::parse(text, nullptr, false);
  if (doc.is_discarded() || !doc.is_object() || !doc.contains("components") || !doc["components"].is_array())
    return std::nullopt;
  std::set<std::string> gone;
  auto& comps = doc["components"];
  for (auto it = comps.begin(); it != comps.end();) {
    const std::string ref = it->is_object() && it->contains("bom-ref") && (*it)["bom-ref"].is_string()
                                ? (*it)["bom-ref"].get<std::string>()
                                : std::string();
    const size_t hash = ref.rfind('#');
    bool drop = false;
    if (hash != std::string::npos)
      for (const auto& h : hashes) drop = drop || ref.compare(hash + 1, h.size(), h) == 0;
    if (drop) {
      gone.insert(ref);
      it = comps.erase(it);
    } else {
      ++it;
    }
  }
  if (gone.empty()) return std::nullopt;
  if (doc.contains("dependencies") && doc["dependencies"].is_array()) {
    auto& deps = doc["dependencies"];
    for (auto it = deps.begin(); it != deps.end();) {
      if (it->is_object() && it->contains("ref") && (*it)["ref"].is_string() && gone.count((*it)["ref"].get<std::string>())) {
        it = deps.erase(it);
        continue;
      }
      if (it->is_object() && it->contains("dependsOn") && (*it)["dependsOn"].is_array()) {
        auto& on = (*it)["dependsOn"];
        for (auto d = on.begin(); d != on.end();)
          d = d->is_string() && gone.count(d->get<std::string>()) ? on.erase(d) : d + 1;
      }
      ++it;
    }
  }
  return doc.dump(2) + "\n";
}

bool excluded(const RepairOptions& o, const std::string& soname) {
  for (const auto& p : o.exclude)
    if (::fnmatch(p.c_str(), soname.c_str(), 0) == 0) return true;
  return false;
}

// The search entries that apply, as the editor writes them: DT_RUNPATH when
// the library has one, else DT_RPATH.
struct Path {
  bool runpath = false;
  std::vector<std::string> entries;
  bool operator==(const Path&) const = default;
  std::string text() const {
    std::string t;
    for (const auto& e : entries) t += (t.empty() ? "" : ":") + e;
    return t;
  }
  const char* tag() const { return runpath ? "DT_RUNPATH" : "DT_RPATH"; }
};
Path path_of(const LoadFacts& f) {
  if (!f.runpath.empty()) return {true, f.runpath};
  return {false, f.rpath};
}
void set_path(LoadFacts& f, const Path& p) {
  f.runpath.clear();
  f.rpath.clear();
  (p.runpath ? f.runpath : f.rpath) = p.entries;
}

// The install-relative folder a `$ORIGIN` search entry of a library in
// folder `own` names, when it stays inside the install tree.
std::optional<std::string> origin_dir(const std::string& raw, const std::string& own) {
  LibraryModel probe;
  probe.load.runpath = {raw};
  auto es = model::search_entries(probe, own);
  if (es.size() == 1 && es[0].kind == model::SearchEntry::Kind::origin && !es[0].escapes) return es[0].dir;
  return std::nullopt;
}

// A light copy of the model for the simulation: what the loader and the
// tree read (load facts, member names, strings for plugin evidence, the
// PyInit_ exports that mark extension modules), without device code.
// What the loader and the tree read of a wheel besides its libraries.
CheckModel without_libraries(const CheckModel& m) {
  CheckModel w;
  w.path = m.path;
  w.kind = m.kind;
  w.filename = m.filename;
  w.parsed_filename = m.parsed_filename;
  w.dist_info = m.dist_info;
  w.metadata = m.metadata;
  w.python_loads = m.python_loads;
  w.members = m.members;
  return w;
}

CheckModel light_copy(const CheckModel& m) {
  CheckModel w = without_libraries(m);
  w.libraries.reserve(m.libraries.size());
  for (const auto& l : m.libraries) {
    LibraryModel c;
    c.member = l.member;
    c.archive_member = l.archive_member;
    c.owner = l.owner;
    c.size = l.size;
    c.is_elf = l.is_elf;
    c.load = l.load;
    for (const auto& e : l.exports)
      if (e.rfind("PyInit_", 0) == 0) c.exports.push_back(e);
    c.version_needs = l.version_needs;
    c.version_need_files = l.version_need_files;
    c.cuda_symbol_needs = l.cuda_symbol_needs;
    c.library_strings = l.library_strings;
    c.dlopen_names = l.dlopen_names;
    c.error = l.error;
    c.elf_error = l.elf_error;
    w.libraries.push_back(std::move(c));
  }
  return w;
}

// Renames a NEEDED name (and the version-needs file of that name) in a
// library of the simulation.
void rename_needed(LibraryModel& l, const std::string& from, const std::string& to) {
  for (auto& n : l.load.needed)
    if (n == from) n = to;
  for (auto& f : l.version_need_files)
    if (f == from) f = to;
  for (auto& v : l.version_needs)
    if (v.file == from) v.file = to;
  for (auto& v : l.load.version_needs)
    if (v.file == from) v.file = to;
}

struct Graft {
  std::string source, member, soname, needed;
};

// Finds `name` for a library of machine `machine` on this machine: the
// folders given first (the library's own absolute search entries,
// LD_LIBRARY_PATH), then ld.so.cache, then the default folders.
std::optional<std::string> find_on_host(const std::string& name, uint16_t machine,
                                        const std::vector<std::string>& dirs, bool system) {
  auto fits = [&](const std::string& path) {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return false;
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    uint8_t h[20] = {};
    const bool ok = ::pread(fd, h, sizeof h, 0) == static_cast<ssize_t>(sizeof h);
    ::close(fd);
    return ok && h[0] == 0x7f && h[1] == 'E' && h[2] == 'L' && h[3] == 'F' && h[4] == 2 && h[5] == 1 &&
           static_cast<uint16_t>(h[18] | (h[19] << 8)) == machine;
  };
  for (const auto& d : dirs)
    if (!d.empty() && fits(d + "/" + name)) return d + "/" + name;
  if (!system) return std::nullopt;
  if (auto image = read_whole_file("/etc/ld.so.cache", 64u << 20)) {
    ByteView v(reinterpret_cast<const uint8_t*>(image->data()), image->size());
    if (auto entries = parse_ld_so_cache(v, "/etc/ld.so.cache"))
      for (const auto& e : *entries)
        if (e.soname == name && fits(e.path)) return e.path;
  }
  static const char* kDefault[] = {"/lib64", "/usr/lib64", "/lib", "/usr/lib"};
  const std::string arch = arch_of_machine(machine);
  std::vector<std::string> defaults;
  if (arch == "x86_64") defaults = {"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu"};
  if (arch == "aarch64") defaults = {"/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu"};
  for (const char* d : kDefault) defaults.push_back(d);
  for (const auto& d : defaults)
    if (fits(d + "/" + name)) return d + "/" + name;
  return std::nullopt;
}

class Planner {
 public:
  Planner(const CheckModel& m, const std::vector<Diagnostic>& findings, const model::Providers& providers,
          const RepairOptions& o)
      : m_(m), findings_(findings), providers_(providers), o_(o), w_(light_copy(m)) {}

  Expected<RepairPlan> run() {
    plan_.input = m_.path;
    self_ = model::wheel_name(m_);
    self_nvidia_ = lookup_distribution(self_).has_value();
    reqs_ = model::read_requirements(m_);
    claim_ = model::claimed_major(m_, o_.cuda_major, reqs_);
    declared_ = declared_distributions();
    for (const auto& l : m_.libraries) original_.push_back(path_of(l.load));
    libs_dir_ = m_.parsed_filename->distribution + ".libs";

    remove_bundled();
    apply_fixes();
    follow_dlopen();
    follow_version_needs();
    simulate();
    declare_dependencies();
    if (auto s = choose_platform(); !s) return s.error();
    describe();
    return std::move(plan_);
  }

 private:
  std::map<std::string, std::string> declared_distributions() const {
    std::map<std::string, std::string> out;
    if (!m_.metadata) return out;
    for (const auto& text : m_.metadata->requires_dist)
      if (auto r = Requirement::parse(text); r && r->normalized_name() != self_) out.emplace(r->normalized_name(), text);
    return out;
  }

  // 1. Driver libraries and CUDA libraries of NVIDIA's packages.
  void remove_bundled() {
    std::map<std::string, std::string> reason;  // member -> why
    std::map<std::string, std::string> restore;  // name -> soname restored
    auto consider = [&](const std::string& member, const std::string& name) {
      if (reason.count(member)) {
        if (!restore.count(name)) restore[name] = restore_name(name);
        return;
      }
      const LibraryClass c = classify_soname(name);
      if (c.kind == LibraryKind::nvidia_driver) {
        reason[member] = name + " is an NVIDIA driver library: the installed driver provides it, matching its kernel module";
      } else if (c.kind == LibraryKind::cuda_toolkit && !self_nvidia_ && !model::provided_by_self(m_, member, name) &&
                 !excluded(o_, name)) {
        auto majors = model::candidate_majors(c, claim_);
        const Provision* p = majors.size() == 1 ? c.provision(majors[0]) : nullptr;
        reason[member] = name + " is a CUDA library that " +
                         (p ? std::string(p->distribution) : std::string("NVIDIA's pip packages")) +
                         " provides: depend on it instead of shipping a copy";
        if (p && !p->directory.empty())
          removed_cuda_.push_back({restore_name(name), std::string(p->distribution), std::string(p->directory), member});
      } else {
        return;
      }
      restore[name] = restore_name(name);
    };
    for (const auto& mem : m_.members) {
      auto where = model::install_path(mem.name);
      consider(mem.name, model::file_name(where.value_or(mem.name)));
    }
    for (const auto& l : m_.libraries)
      if (model::loadable(l) && l.load.soname) consider(l.member, *l.load.soname);
    for (const auto& [member, why] : reason) {
      plan_.removed.push_back({member, why});
      removed_.insert(member);
    }
    // The simulation without them.
    std::erase_if(w_.members, [&](const model::MemberModel& x) { return removed_.count(x.name) > 0; });
    for (size_t i = 0; i < w_.libraries.size(); ++i)
      if (removed_.count(w_.libraries[i].member)) gone_.insert(i);
    // Entries into folders of the wheel that held only removed copies
    // (`$ORIGIN/../pkg.libs` after its grafted libcudart is gone) would
    // name a folder nothing provides (unresolved-runpath).
    const model::Tree before = model::build_tree(m_);
    const model::Tree after = model::build_tree(live());
    for (size_t i = 0; i < w_.libraries.size(); ++i) {
      if (gone_.count(i) || !model::loadable(w_.libraries[i])) continue;
      auto& l = w_.libraries[i];
      auto where = model::install_path(l.member);
      if (!where) continue;
      Path p = path_of(l.load);
      std::vector<std::string> keep;
      for (const auto& raw : p.entries) {
        const auto d = origin_dir(raw, model::dir_of(*where));
        const bool dead = d && before.provides_dir(*d) && !after.provides_dir(*d);
        if (dead) dropped_[l.member].push_back(raw + " (its folder held only the removed copies)");
        else keep.push_back(raw);
      }
      if (keep.size() != p.entries.size()) {
        p.entries = keep;
        set_path(l.load, p);
      }
    }
    for (size_t i = 0; i < w_.libraries.size(); ++i) {
      if (gone_.count(i)) continue;
      for (const auto& n : std::vector<std::string>(w_.libraries[i].load.needed))
        if (auto it = restore.find(n); it != restore.end() && it->second != n) {
          rename_needed(w_.libraries[i], n, it->second);
          plan_.needed_changes.push_back({w_.libraries[i].member, n, it->second,
                                          n + " was a renamed copy, removed; the library NEEDs " + it->second +
                                              " again, with its version needs"});
        }
    }
  }

  // A removed copy that libraries open by name (dlopen("libcublas.so.12"),
  // LibraryModel::dlopen_names) rather than NEED: dlopen from a library
  // searches that library's DT_RUNPATH, so each such library gets the
  // package's folder, and the package is declared.
  void follow_dlopen() {
    for (const auto& rc : removed_cuda_) {
      bool opened = false;
      for (size_t i = 0; i < w_.libraries.size(); ++i) {
        if (gone_.count(i) || !model::loadable(w_.libraries[i])) continue;
        const auto& names = w_.libraries[i].dlopen_names;
        if (std::find(names.begin(), names.end(), rc.soname) == names.end()) continue;
        add_dir(i, rc.dir, "opens " + rc.soname + " by name (dlopen), in " + rc.dist + "'s folder " + rc.dir);
        opened = true;
      }
      (void)opened;
    }
  }

  std::string restore_name(const std::string& name) const {
    const LibraryClass c = classify_soname(name);
    if (c.kind == LibraryKind::nvidia_driver) return driver_soname(name);
    const std::string original = grafted_original(name).value_or(name);
    auto majors = model::candidate_majors(c, claim_);
    if (majors.size() == 1)
      if (const Provision* p = c.provision(majors[0]); p && std::string_view(p->soname).find('*') == std::string::npos)
        return std::string(p->soname);
    return original;
  }

  // 4. The check's structured fixes: search entries to drop, requirements.
  void apply_fixes() {
    for (const auto& f : findings_) {
      if (!f.fix || (f.severity != Severity::error && f.severity != Severity::warning)) continue;
      const Fix& x = *f.fix;
      if (x.action == "drop-search-entry") {
        for (size_t i = 0; i < w_.libraries.size(); ++i) {
          auto& l = w_.libraries[i];
          if (gone_.count(i) || l.member != x.target) continue;
          for (auto* v : {&l.load.runpath, &l.load.rpath}) std::erase(*v, x.value);
          dropped_[l.member].push_back(x.value + " (" + f.rule + ")");
          if (!x.value.empty() && x.value[0] == '/') absolute_[l.member].push_back(x.value);
        }
      } else if (x.action == "rename-requirement") {
        auto r = Requirement::parse(x.old);
        if (!r) continue;
        r->name = x.value;
        plan_.requirements.push_back({x.old, r->to_string(),
                                      "deprecated-package-name: " + normalize_name(x.old.substr(0, x.old.find_first_of("[<>=!~; ("))) +
                                          " is a placeholder that installs nothing"});
      } else if (x.action == "raise-floor") {
        auto r = Requirement::parse(x.old);
        if (!r) continue;
        if (std::any_of(r->specifier.specifiers.begin(), r->specifier.specifiers.end(), [](const Specifier& s) {
              return s.op == Specifier::Op::kEqual || s.op == Specifier::Op::kArbitrary;
            })) {
          plan_.problems.push_back("Requires-Dist " + x.old + " pins a release older than " + x.value +
                                   " needs (dependency-floor-too-low); raise the pin by hand");
          continue;
        }
        std::erase_if(r->specifier.specifiers, [](const Specifier& s) {
          return s.op == Specifier::Op::kGreaterEqual || s.op == Specifier::Op::kGreater ||
                 s.op == Specifier::Op::kCompatible;
        });
        auto floor = SpecifierSet::parse(">=" + x.value);
        if (!floor) continue;
        r->specifier.specifiers.insert(r->specifier.specifiers.begin(), floor->specifiers.begin(), floor->specifiers.end());
        plan_.requirements.push_back({x.old, r->to_string(), "dependency-floor-too-low: " + f.message});
      }
    }
  }

  // needed-version-mismatch: a version-needs file that DT_NEEDED does not
  // name follows the one DT_NEEDED name without version needs.
  void follow_version_needs() {
    for (size_t i = 0; i < w_.libraries.size(); ++i) {
      auto& l = w_.libraries[i];
      if (gone_.count(i) || !model::loadable(l)) continue;
      for (const auto& f : std::vector<std::string>(l.version_need_files)) {
        const auto& needed = l.load.needed;
        if (std::find(needed.begin(), needed.end(), f) != needed.end()) continue;
        const auto c = classify_soname(f);
        if (c.component == "ld-linux" || c.component == "ld64") continue;
        std::vector<std::string> bare;
        for (const auto& n : needed)
          if (std::find(l.version_need_files.begin(), l.version_need_files.end(), n) == l.version_need_files.end() &&
              classify_soname(n).kind != LibraryKind::system && std::find(bare.begin(), bare.end(), n) == bare.end())
            bare.push_back(n);
        if (bare.size() != 1) {
          plan_.problems.push_back(l.member + ": .gnu.version_r names " + f +
                                   ", which is not in DT_NEEDED, and no single DT_NEEDED name is its other half");
          continue;
        }
        for (auto& x : l.version_need_files)
          if (x == f) x = bare[0];
        for (auto& v : l.load.version_needs)
          if (v.file == f) v.file = bare[0];
        vn_renames_[l.member].emplace_back(f, bare[0]);
        plan_.needed_changes.push_back({l.member, f, bare[0],
                                        ".gnu.version_r named " + f + " while DT_NEEDED names " + bare[0] +
                                            " (needed-version-mismatch): the version needs follow DT_NEEDED"});
      }
    }
  }

  // The tag a library's written search path gets.
  bool wants_runpath(size_t i) const {
    if (o_.tag == RepairOptions::Tag::rpath) return false;
    if (o_.tag == RepairOptions::Tag::runpath) return true;
    if (i < original_.size()) return original_[i].runpath;
    // A grafted copy keeps the tag it was built with (DT_RPATH when none).
    return graft_original_path_[i - original_.size()].runpath;
  }

  // Adds the folder `dir` (install-relative) to library i's search path.
  void add_dir(size_t i, const std::string& dir, const std::string& why) {
    auto& l = w_.libraries[i];
    Path p = path_of(l.load);
    const bool rp = wants_runpath(i);
    if (p.runpath != rp) p.runpath = rp;  // retagged as it is written
    auto where = model::install_path(l.member);
    const std::string own = where ? model::dir_of(*where) : "";
    for (const auto& raw : p.entries)
      if (origin_dir(raw, own) == dir) {
        set_path(l.load, p);
        return;
      }
    const std::string entry = model::origin_path_to(l.member, dir.empty() ? "." : dir);
    p.entries.push_back(entry);
    set_path(l.load, p);
    reasons_[l.member].push_back(entry + ": " + why);
  }

  // 2 and 3: what the loader still does not find, until nothing changes.
  void simulate() {
    std::set<std::pair<std::string, std::string>> decided;
    // One change per round, libraries that nothing of the wheel NEEDs
    // first: a search path written on an extension module (a DT_RPATH)
    // may already serve the libraries it loads.
    for (int round = 0; round < 4096; ++round) {
      const CheckModel& lm = live();
      model::Tree tree = model::build_tree(lm);
      model::LoadResolution loads = model::resolve_loads(lm, tree);
      bool changed = false;
      std::set<std::string> needed_names;
      for (const auto& l : lm.libraries)
        for (const auto& n : l.load.needed) needed_names.insert(n);
      std::vector<size_t> order(lm.libraries.size());
      for (size_t i = 0; i < order.size(); ++i) order[i] = i;
      auto requested = [&](size_t i) {
        const auto& l = lm.libraries[i];
        auto w = model::install_path(l.member);
        return needed_names.count(w ? model::file_name(*w) : l.member) > 0 ||
               (l.load.soname && needed_names.count(*l.load.soname) > 0);
      };
      std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return !requested(a) && requested(b); });
      for (size_t li : order) {
        if (changed) break;
        const size_t wi = live_index_[li];
        if (li >= loads.needed.size() || loads.needed[li].empty()) continue;
        const LibraryModel lib = w_.libraries[wi];
        for (size_t k = 0; k < lib.load.needed.size() && k < loads.needed[li].size(); ++k) {
          if (loads.needed[li][k].how != How::unresolved) continue;
          const std::string& n = lib.load.needed[k];
          if (!decided.insert({lib.member, n}).second) continue;
          if (excluded(o_, n)) {
            kinds_[{lib.member, n}] = {"excluded", "left outside the wheel (--exclude or the policy's repair.exclude)"};
            continue;
          }
          if (auto pl = std::find_if(live_.python_loads.begin(), live_.python_loads.end(),
                                     [&](const model::PythonLoad& x) { return x.loads(n); });
              pl != live_.python_loads.end()) {
            // cuda.pathfinder with cuda-pathfinder declared leaves the
            // choice of CUDA to the user (undeclared-dependency's note).
            const bool chooser = pl->kind == model::PythonLoad::Kind::pathfinder && declared_.count("cuda-pathfinder");
            kinds_[{lib.member, n}] = {chooser ? "python-pathfinder" : "python",
                                       "loaded by the package's Python code first (" + pl->describe() + ")"};
            continue;
          }
          if (const model::Provider* p = declared_provider(n)) {
            kinds_[{lib.member, n}] = {"dependency", p->distribution + " (declared) puts it in the process [" + p->source + "]"};
            continue;
          }
          const LibraryClass c = classify_soname(n);
          const bool plugin = li < loads.plugin.size() && !loads.plugin[li].empty();
          if (c.kind == LibraryKind::cuda_toolkit && plugin) {
            // A backend chosen at run time (bitsandbytes' libbitsandbytes_cuda118.so):
            // the machine that chooses it provides its CUDA, as check says.
            kinds_[{lib.member, n}] = {"plugin", "the library is a plugin (" + loads.plugin[li] +
                                                     "): the machine that chooses it provides " + n};
            continue;
          }
          if (c.kind == LibraryKind::cuda_toolkit) {
            if (self_nvidia_) continue;
            auto majors = model::candidate_majors(c, claim_ ? claim_ : library_major(lib));
            if (majors.size() != 1) {
              plan_.problems.push_back(
                  lib.member + ": DT_NEEDED " + n +
                  (majors.empty() ? (c.form == SonameForm::unversioned
                                         ? std::string(" has no version, so no pip package's soname matches it")
                                         : std::string(" is a CUDA library of a major cuwheel's package tables do not "
                                                       "cover (CUDA 12 and 13 only)"))
                                  : std::string(" fits CUDA 12 and CUDA 13; say which (--cuda-major or the policy's cuda-major)")));
              continue;
            }
            const Provision* p = c.provision(majors[0]);
            if (!p || p->directory.empty()) {
              plan_.problems.push_back(lib.member + ": DT_NEEDED " + n + " has no pip package for CUDA " +
                                       std::to_string(majors[0]));
              continue;
            }
            add_dir(wi, std::string(p->directory),
                    "finds " + n + " in " + std::string(p->distribution) + "'s folder " + std::string(p->directory));
            changed = true;
            break;
          }
          // Shipped elsewhere in the wheel.
          std::string elsewhere;
          bool found = false;
          for (const auto& [d, names] : tree.files)
            if (names.count(n)) {
              elsewhere = d;
              found = true;
              break;
            }
          if (found) {
            add_dir(wi, elsewhere, "the wheel ships " + n + " in " + (elsewhere.empty() ? "site-packages" : elsewhere));
            changed = true;
            break;
          }
          if (li < loads.plugin.size() && !loads.plugin[li].empty()) {
            kinds_[{lib.member, n}] = {"plugin", "the library is a plugin (" + loads.plugin[li] +
                                                     "): the machine that chooses it provides " + n};
            continue;
          }
          if (graft(wi, n)) {
            changed = true;
            break;
          }
        }
      }
      if (!changed) break;
    }
  }

  const model::Provider* declared_provider(const std::string& n) const {
    const std::optional<int> own = model::name_major(m_);
    for (const model::Provider* p : providers_.find(n)) {
      if (p->distribution == self_ || !declared_.count(p->distribution)) continue;
      if (auto pm = model::name_major_of(p->distribution); pm && own && *pm != *own) continue;
      return p;
    }
    return nullptr;
  }

  // Grafts `n` for library wi: an existing graft of that name, or a copy of
  // the file this machine has.
  bool graft(size_t wi, const std::string& n) {
    LibraryModel& lib = w_.libraries[wi];
    auto it = std::find_if(grafts_.begin(), grafts_.end(), [&](const Graft& g) { return g.needed == n; });
    if (it == grafts_.end()) {
      std::vector<std::string> dirs;
      for (const auto& e : absolute_[lib.member]) dirs.push_back(e);
      for (const auto& e : path_of(lib.load).entries)
        if (!e.empty() && e[0] == '/') dirs.push_back(e);
      if (wi < m_.libraries.size())
        for (const auto& e : path_of(m_.libraries[wi].load).entries)
          if (!e.empty() && e[0] == '/') dirs.push_back(e);
      for (const auto& d : o_.library_path) dirs.push_back(d);
      auto src = find_on_host(n, lib.load.machine, dirs, o_.system_search);
      if (!src) {
        kinds_[{lib.member, n}] = {"unresolved", "found neither in the wheel nor on this machine"};
        plan_.problems.push_back(lib.member + ": DT_NEEDED " + n +
                                 " is found neither in the wheel, nor in a declared dependency, nor on this machine "
                                 "(LD_LIBRARY_PATH, ld.so.cache, the default folders) to graft");
        return false;
      }
      auto bytes = read_whole_file(*src, size_t{4} << 30);
      if (!bytes) {
        plan_.problems.push_back(lib.member + ": DT_NEEDED " + n + ": " + bytes.error().message());
        return false;
      }
      ByteView v(reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size());
      model::ReadObjectOptions ro;
      ro.exports = false;
      LibraryModel copy = model::read_object(v, ro);
      if (!copy.is_elf || !copy.error.empty()) {
        plan_.problems.push_back(lib.member + ": DT_NEEDED " + n + ": " + *src + " is no readable shared library" +
                                 (copy.error.empty() ? "" : " (" + copy.error + ")"));
        return false;
      }
      const std::string soname = graft_name(n, v);
      copy.member = libs_dir_ + "/" + soname;
      copy.load.soname = soname;
      copy.device = {};
      grafts_.push_back({*src, copy.member, soname, n});
      graft_original_path_.push_back(path_of(copy.load));
      copy.load.runpath.clear();
      copy.load.rpath.clear();
      w_.libraries.push_back(std::move(copy));
      model::MemberModel mm;
      mm.name = grafts_.back().member;
      w_.members.push_back(mm);
      it = grafts_.end() - 1;
      // lib may have moved with the vector.
    }
    LibraryModel& requester = w_.libraries[wi];
    rename_needed(requester, n, it->soname);
    graft_renames_[requester.member].emplace_back(n, it->soname);
    plan_.needed_changes.push_back({requester.member, n, it->soname, "grafted from " + it->source});
    add_dir(wi, libs_dir_, "finds the grafted " + it->soname + " (" + n + ") in " + libs_dir_);
    return true;
  }

  // The simulation's model without the removed libraries.
  const CheckModel& live() {
    live_ = without_libraries(w_);
    live_index_.clear();
    for (size_t i = 0; i < w_.libraries.size(); ++i) {
      if (gone_.count(i)) continue;
      live_.libraries.push_back(w_.libraries[i]);
      live_index_.push_back(i);
    }
    return live_;
  }

  // Declared without a condition (not only behind an extra), or implied by
  // a package that is: what a plain `pip install` of the wheel installs.
  bool declared_unconditionally(const std::string& dist) const {
    for (const auto* list : {&reqs_.declared, &reqs_.implied})
      for (const auto& d : *list)
        if (d.distribution == dist && d.behind_extras.empty()) return true;
    return false;
  }

  // Requires-Dist for the NVIDIA packages whose folders the libraries now
  // search (or already searched without declaring them), for the removed
  // copies, and for CUDA names the package's Python code loads first.
  // Plugins (opened with dlopen when chosen) are left to the machine that
  // chooses them, as check leaves them.
  void declare_dependencies() {
    if (self_nvidia_) return;
    const CheckModel& lm = live();
    model::Tree tree = model::build_tree(lm);
    model::LoadResolution loads = model::resolve_loads(lm, tree);
    struct Need {
      std::string soname, member, symbol;
      std::optional<CudaRelease> floor;
      std::string how = "NEEDs";  ///< how the library asks for it
    };
    std::map<std::string, Need> needs;  // distribution -> need
    auto want = [&](const std::string& dist, const std::string& soname, const std::string& member, const std::string& how) {
      if (dist.empty() || dist == self_ || declared_unconditionally(dist)) return;
      auto& nd = needs[dist];
      if (nd.member.empty()) {
        nd.soname = soname;
        nd.member = member;
        nd.how = how;
      }
    };
    for (size_t li = 0; li < lm.libraries.size(); ++li) {
      const LibraryModel& lib = lm.libraries[li];
      if (li >= loads.needed.size() || (li < loads.plugin.size() && !loads.plugin[li].empty())) continue;
      const auto majors_hint = library_major(lib);
      for (size_t k = 0; k < lib.load.needed.size() && k < loads.needed[li].size(); ++k) {
        const auto& r = loads.needed[li][k];
        const std::string& n = lib.load.needed[k];
        const LibraryClass c = classify_soname(n);
        if (c.kind != LibraryKind::cuda_toolkit || declared_provider(n)) continue;
        auto kind = kinds_.find({lib.member, n});
        const bool by_python = r.how == How::unresolved && kind != kinds_.end() && kind->second.first == "python";
        if (r.how != How::nvidia_folder && !by_python) continue;
        for (int major : model::candidate_majors(c, claim_ ? claim_ : majors_hint)) {
          const Provision* p = c.provision(major);
          if (!p || (r.how == How::nvidia_folder && p->directory != r.dir)) continue;
          const std::string soname = std::string(p->soname).find('*') == std::string::npos ? std::string(p->soname) : n;
          want(std::string(p->distribution), soname, lib.member, by_python ? "NEEDs (its Python code loads it first)" : "NEEDs");
          if (by_python) break;
        }
      }
    }
    // A removed copy is declared whether or not a library NEEDs it (the
    // package loaded it somehow), unless a declared dependency puts it in
    // the process.
    for (const auto& rc : removed_cuda_) {
      if (declared_provider(rc.soname)) continue;
      std::string needer;
      for (const auto& l : lm.libraries)
        if (needer.empty() && std::find(l.load.needed.begin(), l.load.needed.end(), rc.soname) != l.load.needed.end())
          needer = l.member;
      if (!needer.empty()) want(rc.dist, rc.soname, needer, "NEEDs (the wheel's copy was removed)");
      else want(rc.dist, rc.soname, rc.member, "shipped, and loads by name,");
    }
    // Floors: the newest CUDA release a versioned symbol of the package's
    // library needs, over every library.
    for (const auto& lib : lm.libraries)
      for (const auto& sn : lib.cuda_symbol_needs) {
        if (!sn.first_release) continue;
        const LibraryClass c = classify_soname(sn.file);
        const Provision* p = c.provision(sn.first_release->major);
        if (!p) continue;
        auto it = needs.find(std::string(p->distribution));
        if (it == needs.end()) continue;
        if (!it->second.floor || *it->second.floor < *sn.first_release) {
          it->second.floor = *sn.first_release;
          it->second.symbol = sn.symbol + " (" + lib.member + ")";
        }
      }
    for (const auto& [dist, nd] : needs) {
      std::string spec;
      std::string why = nd.how.rfind("shipped", 0) == 0
                            ? "the wheel shipped " + nd.member + " (" + nd.soname + "), which it loads by name"
                            : nd.member + " " + nd.how + " " + nd.soname;
      if (reqs_.has(dist)) why += "; declared only behind an extra, which a plain install does not install";
      const auto major = soname_major(nd.soname);
      if (nd.floor) {
        spec = ">=" + nd.floor->str();
        why += "; >=" + nd.floor->str() + ": it needs " + nd.symbol + ", first in CUDA " + nd.floor->str();
      } else if (major && version_follows_soname(nd.soname)) {
        spec = ">=" + std::to_string(*major);
      }
      if (major && version_follows_soname(nd.soname)) {
        spec += (spec.empty() ? "" : ",") + std::string("<") + std::to_string(*major + 1);
        why += "; <" + std::to_string(*major + 1) + ": the next soname major is another ABI";
      }
      plan_.requirements.push_back({"", dist + spec, why});
    }
  }

  // The CUDA major a library's own unambiguous CUDA names pin
  // (libcusparse.so.12 fits 12 and 13; beside libcublas.so.12 it is 12).
  std::optional<int> library_major(const LibraryModel& lib) const {
    std::set<int> majors;
    for (const auto& n : lib.load.needed) {
      const LibraryClass c = classify_soname(n);
      if (c.kind == LibraryKind::cuda_toolkit)
        if (auto mj = c.major()) majors.insert(*mj);
    }
    if (majors.size() == 1) return *majors.begin();
    return std::nullopt;
  }

  // 5. The platform tag.
  Status choose_platform() {
    // Plugins (opened with dlopen when chosen) do not set the tag, as the
    // platform-tag rule does not hold them to it: only the older machines
    // that choose one fail, the rest of the package loads.
    SymbolVersionNeeds needs, plugin_needs;
    uint16_t machine = 0;
    const CheckModel& lm = live();
    const model::LoadResolution loads = model::resolve_loads(lm, model::build_tree(lm));
    for (size_t li = 0; li < lm.libraries.size(); ++li) {
      const auto& l = lm.libraries[li];
      if (!model::loadable(l)) continue;
      if (!machine) machine = l.load.machine;
      const bool plugin = li < loads.plugin.size() && !loads.plugin[li].empty();
      for (const auto& vn : l.load.version_needs)
        for (const auto& v : vn.versions) (plugin ? plugin_needs : needs).add(l.member, v);
    }
    const auto& wf = *m_.parsed_filename;
    std::string arch;
    for (const auto& t : wf.platform_tags)
      if (arch.empty()) arch = arch_of_tag(t);
    if (arch.empty()) arch = arch_of_machine(machine);
    // Every library, plugins too: what a tag chosen here promises.
    SymbolVersionNeeds all = needs;
    for (const auto* mx : {&plugin_needs.glibc, &plugin_needs.glibcxx, &plugin_needs.cxxabi})
      if (*mx) all.add(mx->value().member, mx->value().text);
    auto text_of = [](const SymbolVersionNeeds& n) {
      std::string t;
      for (const auto* mx : {&n.glibc, &n.glibcxx, &n.cxxabi})
        if (*mx) t += (t.empty() ? "" : ", ") + (*mx)->text + " (" + (*mx)->member + ")";
      return t.empty() ? std::string("no GLIBC, GLIBCXX or CXXABI version") : t;
    };
    auto max_text = [&]() { return text_of(needs); };
    plan_.platform_tags = wf.platform_tags;
    // Every library of one architecture, the tag's.
    const std::string lib_arch = arch_of_machine(machine);
    for (const auto& l : lm.libraries)
      if (model::loadable(l) && !arch.empty() && arch_of_machine(l.load.machine) != arch)
        plan_.problems.push_back(l.member + " is an ELF file for " +
                                 (arch_of_machine(l.load.machine).empty() ? "machine " + std::to_string(l.load.machine)
                                                                          : arch_of_machine(l.load.machine)) +
                                 ", the wheel's platform is " + arch);
    bool has_elf = false;
    for (const auto& l : lm.libraries) has_elf = has_elf || model::loadable(l);
    bool linux_tag = false;
    for (const auto& t : wf.platform_tags) linux_tag = linux_tag || !arch_of_tag(t).empty();
    if (o_.plat && !has_elf && !linux_tag) {
      plan_.problems.push_back("cannot repair to " + *o_.plat +
                               ": the wheel ships no ELF library, so it is no platform wheel to retag");
    }
    if (o_.plat) {
      auto g = platform_tag_glibc(*o_.plat);
      if (auto v = validate_plat(*o_.plat); !v) return v.error();
      if (!lib_arch.empty() && arch_of_tag(*o_.plat) != lib_arch)
        plan_.problems.push_back("cannot repair to " + *o_.plat + ": it is for " + arch_of_tag(*o_.plat) +
                                 ", the wheel's libraries are " + lib_arch);
      if (!needs.allowed_by(*g)) {
        plan_.problems.push_back("cannot repair to " + *o_.plat + ": the libraries need " + max_text() +
                                 (most_compatible_glibc(needs)
                                      ? ", which manylinux_2_" + std::to_string(*most_compatible_glibc(needs)) + " allows"
                                      : ""));
      }
      plan_.platform_tags = manylinux_tags(*g, arch_of_tag(*o_.plat));
      plan_.platform_reason = "--plat " + *o_.plat + "; the libraries need " + max_text();
    } else if (has_elf && !linux_tag) {
      std::string tags;
      for (const auto& t : wf.platform_tags) tags += (tags.empty() ? "" : ".") + t;
      plan_.problems.push_back("the wheel's platform tag is " + tags + " but it ships ELF libraries for Linux " +
                               (lib_arch.empty() ? std::string("") : lib_arch + " ") +
                               "(a platform wheel built as a pure one): build it as a platform wheel, or give --plat");
      plan_.platform_reason = "kept: not a Linux platform tag";
    } else {
      std::optional<int> promise;
      bool linux_only = !wf.platform_tags.empty();
      for (const auto& t : wf.platform_tags) {
        if (auto g = platform_tag_glibc(t); g && (!promise || *g < *promise)) promise = g;
        if (!(t.rfind("linux_", 0) == 0 || platform_tag_glibc(t))) linux_only = false;
      }
      if (promise && needs.allowed_by(*promise)) {
        const bool core_any = needs.glibc || needs.glibcxx || needs.cxxabi;
        const bool plugin_any = plugin_needs.glibc || plugin_needs.glibcxx || plugin_needs.cxxabi;
        plan_.platform_reason = core_any || !plugin_any
                                    ? "kept: the libraries need " + max_text() + ", which the tag allows"
                                    : std::string("kept: only plugins need symbol versions");
      } else if (linux_only && !arch.empty()) {
        // A tag chosen here counts the plugins too (it promises every
        // file); --plat may ask for less.
        auto g = most_compatible_glibc(all);
        if (!g) {
          plan_.problems.push_back("the libraries need " + text_of(all) + ", newer than every manylinux policy known");
        } else {
          plan_.platform_tags = manylinux_tags(*g, arch);
          plan_.platform_reason = "the most compatible tag the libraries allow: they need " + text_of(all);
        }
      } else {
        plan_.platform_reason = "kept: not a Linux platform tag";
      }
    }
    const bool chose = plan_.platform_reason.rfind("the most compatible", 0) == 0;
    for (const auto* mx : {&plugin_needs.glibc, &plugin_needs.glibcxx, &plugin_needs.cxxabi})
      if (*mx && !chose) {
        const auto* core = mx == &plugin_needs.glibc ? &needs.glibc : mx == &plugin_needs.glibcxx ? &needs.glibcxx : &needs.cxxabi;
        if (!*core || (*core)->version < (*mx)->version)
          plan_.platform_reason += "; the plugin " + (*mx)->member + " needs " + (*mx)->text + " (not counted: opened only when chosen)";
      }
    plan_.retagged = plan_.platform_tags != wf.platform_tags;
    // WHEEL's Tag lines are written whenever they are not the file name's
    // (tag-mismatch: a wheel renamed by hand).
    if (!plan_.retagged && m_.wheel_info) {
      std::set<std::string> want, have(m_.wheel_info->tags.begin(), m_.wheel_info->tags.end());
      for (const auto& py : wf.python_tags)
        for (const auto& abi : wf.abi_tags)
          for (const auto& pl : wf.platform_tags) want.insert(py + "-" + abi + "-" + pl);
      if (want != have) {
        plan_.retagged = true;
        plan_.platform_reason += "; WHEEL's Tag lines rewritten to the file name's tags";
      }
    }
    // WHEEL's Build field follows the file name's build tag the same way
    // (PEP 427; tag-mismatch warns when they differ).
    if (m_.wheel_info && m_.wheel_info->build != wf.build) {
      plan_.retagged = true;
      plan_.platform_reason += wf.build ? "; WHEEL's Build field set to the file name's build tag " + *wf.build
                                        : std::string("; WHEEL's Build field removed (the file name has no build tag)");
    }
    std::string name = wf.distribution + "-" + wf.version;
    if (wf.build) name += "-" + *wf.build;
    auto join = [](const std::vector<std::string>& v) {
      std::string t;
      for (const auto& x : v) t += (t.empty() ? "" : ".") + x;
      return t;
    };
    plan_.output_name = name + "-" + join(wf.python_tags) + "-" + join(wf.abi_tags) + "-" + join(plan_.platform_tags) + ".whl";
    return Ok{};
  }

  static bool tree_has(const model::Tree& tree, const std::string& name) {
    for (const auto& [d, names] : tree.files)
      if (names.count(name)) return true;
    return false;
  }

  // The report and the edits, from the simulation against the input.
  void describe() {
    model::Tree tree = model::build_tree(live());
    model::LoadResolution loads = model::resolve_loads(live_, tree);
    std::set<std::string> grafted;
    for (const auto& g : grafts_) grafted.insert(g.member);
    for (size_t li = 0; li < live_.libraries.size(); ++li) {
      const size_t wi = live_index_[li];
      const LibraryModel& l = w_.libraries[wi];
      if (!model::loadable(l)) continue;
      const bool is_graft = wi >= m_.libraries.size();
      // NEEDED, as the input names them.
      const std::vector<std::string>& before = is_graft ? l.load.needed : m_.libraries[wi].load.needed;
      for (size_t k = 0; k < l.load.needed.size(); ++k) {
        NeededEntry e;
        e.member = l.member;
        e.needed = k < before.size() ? before[k] : l.load.needed[k];
        e.after = l.load.needed[k];
        const auto c = classify_soname(e.after);
        const model::NeededResolution* r = li < loads.needed.size() && k < loads.needed[li].size() ? &loads.needed[li][k] : nullptr;
        if (auto it = kinds_.find({l.member, e.after}); it != kinds_.end() && (!r || r->how == How::unresolved)) {
          e.kind = it->second.first;
          e.provider = it->second.second;
        } else if (c.grafted && c.kind == LibraryKind::system && tree_has(tree, e.after)) {
          // A copy of a system library that a repair step grafted
          // (torchvision.libs/libz.def23b81.so.1): shipped in the wheel.
          e.kind = "grafted";
          e.provider = "the wheel's grafted copy of " + grafted_original(e.after).value_or(e.after);
        } else if (c.kind == LibraryKind::system || (r && r->how == How::system)) {
          e.kind = "system";
          e.provider = "the system (manylinux baseline)";
        } else if (c.kind == LibraryKind::nvidia_driver || (r && r->how == How::driver)) {
          e.kind = "driver";
          e.provider = "the installed NVIDIA driver";
        } else if (r && r->how == How::nvidia_folder) {
          e.kind = "cuda";
          std::string dists;
          for (const auto& d : model::candidate_majors(c, claim_))
            if (const Provision* p = c.provision(d); p && p->directory == r->dir)
              dists += (dists.empty() ? "" : " or ") + std::string(p->distribution);
          e.provider = (dists.empty() ? std::string("an NVIDIA package") : dists) + " (" + r->dir + ", " + r->tag + " " + r->entry + ")";
        } else if (r && (r->how == How::own_path || r->how == How::loader_rpath || r->how == How::loaded)) {
          const std::string at = r->how == How::loaded ? r->by : (r->dir.empty() ? "site-packages" : r->dir);
          e.kind = grafted.count(r->how == How::loaded ? r->by : r->dir + "/" + e.after) || r->dir == libs_dir_ ? "grafted" : "wheel";
          e.provider = r->how == How::loaded ? "mapped earlier: " + r->by
                                             : at + (r->how == How::loader_rpath ? " (DT_RPATH of " + r->by + ")" : "");
        } else if (r && r->how == How::as_path) {
          e.kind = "wheel";
          e.provider = "opened as written";
        } else if (const model::Provider* p = declared_provider(e.after)) {
          e.kind = "dependency";
          e.provider = p->distribution + " (declared) puts it in the process";
        } else {
          e.kind = "unresolved";
          e.provider = "not found";
        }
        plan_.needed.push_back(std::move(e));
      }
      // The ELF edits.
      ElfEdits ed;
      const Path now = path_of(l.load);
      const Path was = is_graft ? graft_original_path_[wi - m_.libraries.size()] : original_[wi];
      bool write_path = !(now == was);
      if (write_path) {
        Path out = now;
        if (out.entries.empty()) {
          // Every entry dropped: the editor keeps one entry, and an empty
          // one would search the working folder; the library's own folder
          // is harmless.
          out.entries = {"$ORIGIN"};
          out.runpath = was.entries.empty() ? wants_runpath(wi) : was.runpath;
        }
        ed.search_path = out.text();
        ed.runpath = out.runpath;
        SearchPathChange sc{l.member, was.entries.empty() ? "" : was.tag(), was.text(), out.tag(), out.text(), {}};
        for (const auto& d : dropped_[l.member]) sc.reasons.push_back("dropped " + d);
        for (const auto& r : reasons_[l.member]) sc.reasons.push_back("added " + r);
        if (was.runpath != out.runpath && !was.entries.empty())
          sc.reasons.push_back(std::string("written as ") + out.tag() + (o_.tag == RepairOptions::Tag::keep ? "" : " (as asked)"));
        plan_.search_paths.push_back(std::move(sc));
      }
      if (is_graft) {
        const Graft& g = grafts_[wi - m_.libraries.size()];
        ed.soname = g.soname;
        plan_.grafted.push_back({g.source, g.member, g.soname, g.needed, "NEEDed and found on this machine"});
      } else {
        const auto& orig = m_.libraries[wi].load.needed;
        for (size_t k = 0; k < orig.size() && k < l.load.needed.size(); ++k)
          if (orig[k] != l.load.needed[k]) ed.replace_needed.emplace_back(orig[k], l.load.needed[k]);
        for (const auto& [from, to] : vn_renames_[l.member]) ed.replace_needed.emplace_back(from, to);
      }
      if (is_graft)
        for (const auto& [from, to] : graft_renames_[l.member]) ed.replace_needed.emplace_back(from, to);
      if (ed.search_path || ed.soname || !ed.replace_needed.empty()) plan_.edits[l.member] = std::move(ed);
    }
  }

  const CheckModel& m_;
  const std::vector<Diagnostic>& findings_;
  const model::Providers& providers_;
  const RepairOptions& o_;
  CheckModel w_;                       // the simulation
  CheckModel live_;                    // w_ less the removed libraries
  std::vector<size_t> live_index_;     // live_.libraries[i] is w_.libraries[live_index_[i]]
  std::set<size_t> gone_;              // indices into w_.libraries removed
  std::set<std::string> removed_;      // members removed
  std::vector<Path> original_;         // per input library, its search path
  std::vector<Path> graft_original_path_;
  std::vector<Graft> grafts_;
  struct RemovedCuda {
    std::string soname, dist, dir, member;
  };
  std::vector<RemovedCuda> removed_cuda_;
  std::map<std::string, std::vector<std::string>> dropped_, reasons_, absolute_;
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> vn_renames_, graft_renames_;
  std::map<std::pair<std::string, std::string>, std::pair<std::string, std::string>> kinds_;
  std::map<std::string, std::string> declared_;
  model::Requirements reqs_;
  std::optional<int> claim_;
  std::string self_, libs_dir_;
  bool self_nvidia_ = false;
  RepairPlan plan_;
};

// METADATA with the requirement changes: a replaced value in its line, an
// added one after the last Requires-Dist (or at the end of the headers).
std::string rewrite_metadata(std::string_view text, const std::vector<RequirementChange>& changes) {
  std::vector<std::string> lines;
  size_t i = 0;
  while (i < text.size()) {
    size_t e = text.find('\n', i);
    if (e == std::string_view::npos) e = text.size();
    lines.emplace_back(text.substr(i, e - i));
    i = e + 1;
  }
  const bool final_newline = !text.empty() && text.back() == '\n';
  size_t header_end = lines.size(), last_req = std::string::npos;
  auto is_req = [](const std::string& l) {
    return l.size() >= 14 && strncasecmp(l.c_str(), "Requires-Dist:", 14) == 0;
  };
  auto value = [](const std::string& l) {
    std::string v = l.substr(14);
    while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.erase(0, 1);
    while (!v.empty() && (v.back() == '\r' || v.back() == ' ')) v.pop_back();
    return v;
  };
  for (size_t k = 0; k < lines.size(); ++k) {
    if (lines[k].empty() || lines[k] == "\r") {
      header_end = k;
      break;
    }
    if (is_req(lines[k])) last_req = k;
  }
  // Lines written in the file's own line ends (CRLF when its first line has one).
  const std::string eol_cr = !lines.empty() && !lines[0].empty() && lines[0].back() == '\r' ? "\r" : "";
  std::vector<std::string> added;
  for (const auto& c : changes) {
    if (c.before.empty()) {
      added.push_back("Requires-Dist: " + c.requirement + eol_cr);
      continue;
    }
    for (size_t k = 0; k < header_end; ++k)
      if (is_req(lines[k]) && value(lines[k]) == c.before) lines[k] = "Requires-Dist: " + c.requirement + eol_cr;
  }
  const size_t at = last_req == std::string::npos ? header_end : last_req + 1;
  lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(at), added.begin(), added.end());
  std::string out;
  for (size_t k = 0; k < lines.size(); ++k) out += lines[k] + (k + 1 < lines.size() || final_newline ? "\n" : "");
  return out;
}

// WHEEL with Tag lines for the new platform tags, and a Build line that is
// the file name's build tag (none when the name has none).
std::string rewrite_wheel_info(std::string_view text, const WheelFilename& wf, const std::vector<std::string>& plats) {
  std::string out;
  bool placed = false;
  size_t i = 0;
  std::string tags;
  for (const auto& py : wf.python_tags)
    for (const auto& abi : wf.abi_tags)
      for (const auto& p : plats) tags += "Tag: " + py + "-" + abi + "-" + p + "\r\n";
  if (wf.build) tags += "Build: " + *wf.build + "\r\n";

  const bool crlf = text.find("\r\n") != std::string_view::npos;
  if (!crlf)
    for (size_t k; (k = tags.find("\r\n")) != std::string::npos;) tags.erase(k, 1);
  while (i < text.size()) {
    size_t e = text.find('\n', i);
    if (e == std::string_view::npos) e = text.size();
    std::string line(text.substr(i, e - i));
    i = e + 1;
    if (line.size() >= 4 && strncasecmp(line.c_str(), "Tag:", 4) == 0) {
      if (!placed) out += tags;
      placed = true;
      continue;
    }
    if (line.size() >= 6 && strncasecmp(line.c_str(), "Build:", 6) == 0) continue;  // written after the tags
    out += line + "\n";
  }
  if (!placed) out += tags;
  return out;
}

}  // namespace

Status validate_plat(const std::string& tag) {
  const std::string form = " (one manylinux tag such as manylinux_2_28_x86_64 or manylinux2014_aarch64)";
  if (tag.find('.') != std::string::npos)
    return Error("--plat " + tag + " is a set of tags; give one" + form);
  auto g = platform_tag_glibc(tag);
  const std::string arch = arch_of_tag(tag);
  if (!g || arch.empty()) return Error("--plat " + tag + " is not a manylinux platform tag" + form);
  const std::string expect_legacy = *g == 5 ? "manylinux1_" : *g == 12 ? "manylinux2010_" : *g == 17 ? "manylinux2014_" : "";
  const std::string pep600 = "manylinux_2_" + std::to_string(*g) + "_" + arch;
  if (tag != pep600 && (expect_legacy.empty() || tag != expect_legacy + arch))
    return Error("--plat " + tag + " is not a manylinux platform tag" + form);
  bool known = false;
  for (const auto& r : manylinux_policies()) known = known || r.glibc_minor == *g;
  if (!known) {
    std::string rows;
    for (const auto& r : manylinux_policies()) rows += (rows.empty() ? "" : ", ") + std::to_string(r.glibc_minor);
    return Error("--plat " + tag + ": glibc 2." + std::to_string(*g) + " is no manylinux policy (known: 2." + rows + ")");
  }
  return Ok{};
}

bool RepairPlan::changes() const {
  return !removed.empty() || !grafted.empty() || !requirements.empty() || !edits.empty() || retagged;
}

Expected<RepairPlan> plan_repair(const CheckModel& m, const std::vector<Diagnostic>& findings,
                                 const model::Providers& providers, const RepairOptions& options) {
  if (m.kind != CheckModel::Kind::wheel) return Error(m.path + ": repair takes wheels (.whl files)");
  if (!m.read_errors.empty())
    return Error(m.read_errors.front().first + ": " + m.read_errors.front().second +
                 " (a wheel that cannot be read in full is not repaired)");
  if (!m.parsed_filename) return Error(m.path + ": " + (m.filename_error.empty() ? "not a wheel file name" : m.filename_error));
  if (!m.metadata || m.dist_info.empty())
    return Error(m.path + ": no readable .dist-info/METADATA" + (m.metadata_error.empty() ? "" : " (" + m.metadata_error + ")"));
  if (!m.record) return Error(m.path + ": no readable .dist-info/RECORD");
  for (const auto& l : m.libraries)
    if (l.is_elf && !l.elf_error.empty()) return Error(m.path + ": " + l.member + ": " + l.elf_error);
  // A RECORD that does not match the members: repairing would write a
  // fresh RECORD over whatever changed them.
  for (const auto& f : findings)
    if (f.rule == "record-mismatch" && f.severity == Severity::error)
      return Error(m.path + (f.member.empty() ? "" : ": " + f.member) + ": " + f.message +
                   " (record-mismatch: a wheel whose RECORD does not match its members is not repaired)");
  Planner p(m, findings, providers, options);
  auto plan = p.run();
  if (!plan) return plan;
  // What the check finds that repair does not change: the output would
  // fail on it too, so the plan says so (a dry run predicts the result).
  static const std::set<std::string> kRepaired = {
      "bundled-driver-library", "bundled-cuda-library", "build-machine-path", "unresolved-runpath",
      "unresolved-needed",      "undeclared-dependency", "needed-version-mismatch", "deprecated-package-name",
      "dependency-floor-too-low", "platform-tag",        "tag-mismatch"};
  std::set<std::string> said;
  for (const auto& f : findings)
    if (f.severity == Severity::error && !kRepaired.count(f.rule) && said.insert(f.rule + f.member + f.message).second)
      plan->problems.push_back("not repaired: " + f.rule + (f.member.empty() ? "" : " on " + f.member) + ": " + f.message);
  // A bundled CUDA copy kept by --exclude fails bundled-cuda-library.
  for (const auto& f : findings)
    if (f.rule == "bundled-cuda-library" && f.severity == Severity::error && f.fix) {
      bool removed = false;
      for (const auto& r : plan->removed) removed = removed || r.member == f.fix->target;
      if (!removed)
        plan->problems.push_back("kept by --exclude: " + f.fix->target +
                                 " stays bundled, which bundled-cuda-library flags (ignore that rule to keep it)");
    }
  return plan;
}

Status apply_repair(const CheckModel& m, const RepairPlan& plan, const std::string& out, uint64_t timestamp) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(out, ec) && fs::equivalent(out, m.path, ec)) return Error(out + ": is the input; repair never writes its input");
  if (!plan.changes()) {
    int src = ::open(m.path.c_str(), O_RDONLY | O_CLOEXEC);
    if (src < 0) return Error(m.path + ": cannot open");
    struct stat st {};
    ::fstat(src, &st);
    auto f = AtomicFile::create(out);
    if (!f) {
      ::close(src);
      return f.error();
    }
    auto s = copy_file_bytes(src, 0, f->fd(), 0, static_cast<uint64_t>(st.st_size), out);
    ::close(src);
    if (!s) return s;
    return f->commit();
  }
  auto wheel = Wheel::open(m.path);
  if (!wheel) return wheel.error();
  // Temporary files beside the output.
  std::string tmpl = (fs::path(out).parent_path().empty() ? std::string(".") : fs::path(out).parent_path().string()) +
                     "/.cuwheel-repair-XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (!::mkdtemp(buf.data())) return Error(tmpl + ": cannot create a temporary folder");
  const std::string tmp(buf.data());
  struct Cleanup {
    std::string dir;
    ~Cleanup() {
      std::error_code e;
      fs::remove_all(dir, e);
    }
  } cleanup{tmp};

  size_t counter = 0;
  // `blob`, when given, holds `in`: its pages are let go once written.
  auto write_edited = [&](ByteView in, const ElfEdits& edits, const std::string& what,
                          const Blob* blob = nullptr) -> Expected<std::string> {
    auto p = plan_elf_edit(in, edits);
    if (!p) return p.error().context(what);
    const std::string path = tmp + "/" + std::to_string(counter++);
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) return Error(path + ": cannot create");
    Status s = Ok{};
    // The input's bytes in 1 MiB pieces, the patches over them, the tail.
    const uint64_t n = in.size();
    constexpr uint64_t kPiece = 16ull << 20;
    for (uint64_t off = 0; off < n && s; off += kPiece) {
      const size_t len = static_cast<size_t>(std::min<uint64_t>(kPiece, n - off));
      s = pwrite_all(fd, off, in.data() + off, len, what);
      if (blob) blob->release(off, len);
    }
    for (const auto& patch : p->patches)
      if (s) s = pwrite_all(fd, patch.offset, patch.bytes.data(), patch.bytes.size(), what);
    if (s && !p->tail.empty()) s = pwrite_all(fd, p->tail_offset, p->tail.data(), p->tail.size(), what);
    if (s && ::ftruncate(fd, static_cast<off_t>(p->result.size)) != 0) s = Error(what + ": truncate failed");
    ::close(fd);
    if (!s) return s.error();
    return path;
  };

  std::set<std::string> removed;
  for (const auto& r : plan.removed) removed.insert(r.member);
  // The removed grafted copies, as an SBOM's bom-ref may name them: the
  // hash in the copy's name (the file's SHA-256), and the SHA-256 of the
  // path it was copied from, which auditwheel 6.8 writes (sboms.py hashes
  // the source path), for the folders a build image takes libraries from.
  std::set<std::string> graft_hashes;
  for (const auto& r : plan.removed) {
    const std::string file = model::file_name(r.member);
    auto h = graft_hash(file);
    if (!h) continue;
    graft_hashes.insert(*h);
    const std::string original = grafted_original(file).value_or(file);
    std::vector<std::string> dirs = {"/lib64", "/usr/lib64", "/lib", "/usr/lib", "/usr/local/lib", "/usr/local/lib64",
                                     "/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib/aarch64-linux-gnu",
                                     "/usr/lib/aarch64-linux-gnu", "/usr/local/cuda/lib64",
                                     "/usr/local/cuda/targets/x86_64-linux/lib", "/usr/local/cuda/targets/sbsa-linux/lib"};
    for (int major = 11; major <= 13; ++major)
      for (int minor = 0; minor <= 9; ++minor) {
        const std::string c = "/usr/local/cuda-" + std::to_string(major) + "." + std::to_string(minor);
        dirs.push_back(c + "/lib64");
        dirs.push_back(c + "/targets/x86_64-linux/lib");
        dirs.push_back(c + "/targets/sbsa-linux/lib");
      }
    static const char* kHex = "0123456789abcdef";
    for (const auto& d : dirs) {
      const std::string path = d + "/" + original;
      const auto digest = sha256(ByteView(reinterpret_cast<const uint8_t*>(path.data()), path.size()));
      std::string hex;
      for (uint8_t b : digest) hex += std::string{kHex[b >> 4], kHex[b & 15]};
      graft_hashes.insert(hex);
    }
  }
  std::map<std::string, std::string> digests;  // member -> "sha256=..." read with the model
  for (const auto& mm : m.members)
    if (mm.read_ok && mm.digest.rfind("sha256=", 0) == 0) digests.emplace(mm.name, mm.digest);
  std::vector<OutMember> members;
  const std::string metadata = m.dist_info + "/METADATA", wheel_file = m.dist_info + "/WHEEL",
                    record = m.dist_info + "/RECORD";
  for (const ZipMember& zm : wheel->members()) {
    if (zm.is_dir || removed.count(zm.name) || zm.name == record) continue;
    OutMember om;
    om.name = zm.name;
    om.mode = zm.unix_mode ? zm.unix_mode : 0644;
    auto edit = plan.edits.find(zm.name);
    if (zm.name == metadata && !plan.requirements.empty()) {
      auto b = wheel->read(zm);
      if (!b) return b.error();
      const std::string text = rewrite_metadata(
          std::string_view(reinterpret_cast<const char*>(b->view().data()), b->view().size()), plan.requirements);
      om.bytes.assign(text.begin(), text.end());
    } else if (zm.name == wheel_file && plan.retagged) {
      auto b = wheel->read(zm);
      if (!b) return b.error();
      const std::string text = rewrite_wheel_info(
          std::string_view(reinterpret_cast<const char*>(b->view().data()), b->view().size()), *m.parsed_filename,
          plan.platform_tags);
      om.bytes.assign(text.begin(), text.end());
    } else if (!graft_hashes.empty() && zm.name.rfind(m.dist_info + "/sboms/", 0) == 0 && zm.name.ends_with(".json")) {
      // The removed grafts leave the SBOM with their files.
      auto b = wheel->read(zm);
      if (!b) return b.error();
      auto text = drop_sbom_components(
          std::string_view(reinterpret_cast<const char*>(b->view().data()), b->view().size()), graft_hashes);
      if (text) om.bytes.assign(text->begin(), text->end());
      else om.keep = &zm;
    } else if (edit != plan.edits.end()) {
      auto b = wheel->read(zm);
      if (!b) return b.error();
      auto path = write_edited(b->view(), edit->second, m.path + ": " + zm.name, &*b);
      if (!path) return path.error();
      om.file = *path;
    } else {
      om.keep = &zm;
      // Read in full when the model was built, and checked against RECORD
      // (plan_repair refuses a record-mismatch): copied without a second decode.
      if (auto d = digests.find(zm.name); d != digests.end()) om.digest = d->second;
    }
    members.push_back(std::move(om));
  }
  for (const auto& g : plan.grafted) {
    auto bytes = read_whole_file(g.source, size_t{4} << 30);
    if (!bytes) return bytes.error();
    ByteView v(reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size());
    auto edit = plan.edits.find(g.member);
    OutMember om;
    om.name = g.member;
    om.mode = 0755;
    if (edit != plan.edits.end()) {
      auto path = write_edited(v, edit->second, g.source + " (grafted as " + g.member + ")");
      if (!path) return path.error();
      om.file = *path;
    } else {
      om.bytes.assign(v.data(), v.data() + v.size());
    }
    members.push_back(std::move(om));
  }
  WheelWriteOptions wo;
  wo.timestamp = timestamp;
  auto st = write_wheel(*wheel, std::move(members), record, &*m.record, out, wo);
  if (!st) return st.error();
  return Ok{};
}

std::vector<std::string> auditwheel_excludes(const CheckModel& m, const RepairPlan& plan) {
  std::set<std::string> out;
  // What this repair leaves outside the wheel: the driver, NVIDIA's
  // packages, what a declared dependency or the package's Python code puts
  // in the process, plugins' names, --exclude.
  static const std::set<std::string> kOutside = {"driver", "cuda", "dependency", "python", "python-pathfinder",
                                                  "plugin", "excluded"};
  for (const auto& n : plan.needed)
    if (kOutside.count(n.kind)) out.insert(n.after);
  // Copies the wheel ships, by the name auditwheel would find them under.
  for (const auto& l : m.libraries) {
    if (!model::loadable(l) || !l.load.soname) continue;
    const bool removed = std::any_of(plan.removed.begin(), plan.removed.end(),
                                     [&](const RemovedMember& r) { return r.member == l.member; });
    if (!removed) continue;
    const LibraryClass c = classify_soname(*l.load.soname);
    if (c.kind == LibraryKind::nvidia_driver) out.insert(driver_soname(*l.load.soname));
    else if (c.kind == LibraryKind::cuda_toolkit)
      out.insert(c.major() && c.provision(*c.major()) &&
                         std::string_view(c.provision(*c.major())->soname).find('*') == std::string_view::npos
                     ? std::string(c.provision(*c.major())->soname)
                     : grafted_original(*l.load.soname).value_or(*l.load.soname));
  }
  (void)m;
  return {out.begin(), out.end()};
}

}  // namespace cuwheel::repair
