// unresolved-needed: a DT_NEEDED library that nothing provides, in the
// loader's order (model/loading.h: resolve_loads()). A name is provided
// when it is the system baseline or the driver (libclass: system,
// nvidia_driver; libcuda.so.1 comes from the installed driver); when a
// search-path entry of the library (DT_RUNPATH, else DT_RPATH and the
// DT_RPATH of the libraries that load it) resolves to a folder that holds
// it: a folder of the wheel with a member of that file name or DT_SONAME,
// or the folder of an NVIDIA package that installs it (the per-major
// layout: libnccl.so.2 lives in nvidia/nccl/lib, not in nvidia/cu13/lib);
// or when a library of the wheel with that name is mapped earlier in the
// same load. Whether that package is declared is
// undeclared-dependency's question. One finding per unresolved name (the
// first library that needs it, and how many others). Field reports 7 and 8.
//
// A name the loader finds only because a dependency has put it in the
// process first (model/providers.h: torch's libraries for a torch
// extension, librmm for a RAPIDS binding) is a note naming that dependency
// when the wheel declares it (Requires-Dist), and resolved outright when a
// RUNPATH entry names the dependency's folder; an error naming the
// provider when the wheel does not declare it. A name the wheel's own
// Python code loads by name first (CheckModel::python_loads) is a note too,
// and so is a name that a plugin needs (model/loading.h: plugin_evidence):
// a library that nothing NEEDs, no Python extension, that another library
// or the Python code of the wheel opens by name when it is chosen.
#include <map>
#include <set>

#include "cuwheel/wheel/pep508.h"

#include "loading_util.h"
#include "rules.h"

namespace cuwheel::check::rule_impl {

namespace {

using model::Provider;
using model::PythonLoad;

// The same library of the other CUDA majors: "libcudart.so.12" ->
// {"libcudart.so.13"}; CUDA libraries whose soname major follows the CUDA
// major (cuda/libclass.h) only.
std::vector<std::string> other_majors(const std::string& n) {
  std::vector<std::string> out;
  auto c = classify_soname(n);
  if (c.kind != LibraryKind::cuda_toolkit) return out;
  size_t dot = n.rfind('.');
  if (dot == std::string::npos || n.compare(dot, 4, ".so.") == 0) return out;
  const std::string stem = n.substr(0, dot + 1);
  for (int v = 10; v <= 14; ++v) {
    std::string o = stem + std::to_string(v);
    if (o != n && classify_soname(o).kind == LibraryKind::cuda_toolkit) out.push_back(o);
  }
  return out;
}

// A hint written for the first of several libraries that share a finding
// names $ORIGIN paths from that library's folder; from a library in
// another folder the same target is another path. Returns the hint with,
// for each other folder (up to three), the paths from there:
// "add $ORIGIN/../../libraft/lib64 to the RUNPATH (from pylibraft/sparse/linalg:
// $ORIGIN/../../../libraft/lib64)".
std::string hint_for_folders(const std::string& hint, const std::string& first_folder,
                             const std::set<std::string>& folders) {
  if (folders.size() < 2 || !folders.count(first_folder) || hint.find("$ORIGIN") == std::string::npos) return hint;
  std::vector<std::string> targets;  // install-relative folders the hint's paths reach
  for (size_t p = hint.find("$ORIGIN"); p != std::string::npos; p = hint.find("$ORIGIN", p + 1)) {
    size_t e = hint.find_first_of(" ,)", p);
    std::string rel = hint.substr(p + 7, e == std::string::npos ? std::string::npos : e - p - 7);
    if (!rel.empty() && rel[0] == '/') rel.erase(0, 1);
    auto t = loading::normalize_relative(first_folder.empty() ? (rel.empty() ? "." : rel)
                                                              : first_folder + (rel.empty() ? "" : "/" + rel));
    if (!t) return hint;  // a path out of the install tree: left as written
    targets.push_back(*t == "." ? "" : *t);
  }
  std::string extra;
  size_t shown = 0;
  for (const auto& f : folders) {
    if (f == first_folder) continue;
    if (++shown > 3) {
      extra += "; and from " + std::to_string(folders.size() - 4) + " more folders likewise";
      break;
    }
    std::string paths;
    for (const auto& t : targets)
      paths += (paths.empty() ? "" : " or ") + loading::origin_path_to((f.empty() ? "" : f + "/") + "x", t.empty() ? "." : t);
    extra += (extra.empty() ? "" : "; ") + std::string("from ") + (f.empty() ? "site-packages" : f) + ": " + paths;
  }
  return hint + " (that path is from " + (first_folder.empty() ? "site-packages" : first_folder) + "; " + extra + ")";
}

}  // namespace

void unresolved_needed(const Context& ctx, Emitter& out) {
  const auto& m = ctx.model;
  const std::string noun = loading::package_noun(m);
  if (!m.is_distribution()) return;
  const model::Tree& tree = ctx.tree;
  const model::LoadResolution& loads = ctx.loads;
  struct Agg {
    std::string member, msg, hint;
    size_t libs = 0;
    std::set<std::string> folders;  ///< install folders of the libraries counted
  };
  // Counts one more library for `a`; true for the first, which writes the text.
  // A member outside the install tree (an absolute name, `..`: unsafe-path's
  // finding) has no $ORIGIN path to give.
  auto first = [](Agg& a, const LibraryModel& l) {
    auto w = loading::install_path(l.member);
    const std::string f = w ? loading::dir_of(*w) : "";
    if (w && !w->empty() && (*w)[0] != '/' && loading::normalize_relative(*w)) a.folders.insert(f);
    return a.libs++ == 0;
  };
  std::map<std::string, Agg> agg, notes, warns;
  // The distributions the wheel declares, with the text that declares them.
  const std::map<std::string, std::string> deps = loading::declared_distributions(m);
  const std::optional<int> own_major = loading::name_major(m);
  std::string own;
  if (m.metadata && !m.metadata->name.empty()) own = normalize_name(m.metadata->name);
  for (size_t li = 0; li < m.libraries.size(); ++li) {
    const LibraryModel& lib = m.libraries[li];
    if (loads.needed[li].empty()) continue;  // not loadable, or no install path
    auto where = loading::install_path(lib.member);
    std::string dir = loading::dir_of(*where);
    auto entries = loading::search_entries(lib, dir);
    for (size_t k = 0; k < lib.load.needed.size(); ++k) {
      // Found by the loader's order (model/loading.h): the library's own
      // search entries, the DT_RPATH of its loaders, a library already
      // mapped; the system's and the driver's names are not searched.
      if (loads.needed[li][k].how != model::NeededResolution::How::unresolved) continue;
      const std::string& n = lib.load.needed[k];
      auto c = classify_soname(n);
      std::string elsewhere;
      for (const auto& [d, names] : tree.files)
        if (names.count(n)) {
          elsewhere = d.empty() ? "." : d;
          break;
        }
      std::string path_text;
      for (const auto& e : entries) path_text += (path_text.empty() ? "" : ":") + e.raw;
      std::string tag = lib.load.runpath.empty() ? "DT_RPATH" : "DT_RUNPATH";
      std::string msg = "DT_NEEDED " + n + " is not found through " +
                        (entries.empty() ? std::string("any RPATH/RUNPATH (the library has none)")
                                         : tag + " " + path_text);
      std::string hint;
      // A plugin opened by a library that has already found the name
      // (paddle's libmklml_intel.so NEEDs libiomp5.so, which libpaddle.so
      // NEEDs and finds first): by the time the plugin is opened, the name
      // is in the process.
      // A library that nothing NEEDs and Python opens with ctypes (paddle's
      // libmklml_intel.so) finds the name the same way once an extension
      // module that NEEDs and finds it is imported: a warning, since that
      // order is the package's, not the loader's.
      const std::string own_file = model::file_name(*where);
      bool root = !model::python_extension_module(lib, own_file);
      for (const auto& other : m.libraries)
        for (const auto& x : other.load.needed) root = root && x != own_file && !(lib.load.soname && x == *lib.load.soname);
      if ((!loads.plugin[li].empty() || root) && !elsewhere.empty()) {
        std::string finder;
        bool finder_is_extension = false;
        for (size_t j = 0; j < m.libraries.size() && finder.empty(); ++j) {
          if (j == li || !loads.plugin[j].empty() || j >= loads.needed.size()) continue;
          const auto& other = m.libraries[j];
          for (size_t q = 0; q < other.load.needed.size() && q < loads.needed[j].size(); ++q)
            if (other.load.needed[q] == n && loads.needed[j][q].how != model::NeededResolution::How::unresolved) {
              finder = other.member;
              auto ow = loading::install_path(other.member);
              finder_is_extension =
                  ow && model::python_extension_module(other, model::file_name(*ow));
            }
        }
        if (!finder.empty() && loads.plugin[li].empty() && finder_is_extension) {
          auto& w = warns[n];
          if (first(w, lib)) {
            w.member = lib.member;
            w.msg = msg + "; the " + noun + " ships it in " + elsewhere + ", and the extension module " + finder +
                    " NEEDs and finds it, so it is in the process if the package imports that module before it opens "
                    "this library (nothing else finds it)";
            w.hint = "add " + loading::origin_path_to(lib.member, elsewhere) + " to the RUNPATH";
          }
          continue;
        }
        if (!finder.empty() && !loads.plugin[li].empty()) {
          auto& note = notes[n];
          if (first(note, lib)) {
            note.member = lib.member;
            note.msg = msg + "; the library is a plugin opened with dlopen (" + loads.plugin[li] + "), and " + finder +
                       " NEEDs and finds " + n + ", so it is in the process when the plugin is opened";
            note.hint = "add $ORIGIN/<relative path to " + elsewhere + "> to the plugin's RUNPATH to find it without that order";
          }
          continue;
        }
      }
      // The wheel ships a Python extension module of that name (triton's
      // plugins NEED triton/_C/libtriton.so): whatever opens this library
      // runs after Python imported that module, whose soname is then in
      // the process.
      std::string ext_member;
      if (!elsewhere.empty())
        for (const auto& other : m.libraries) {
          auto ow = other.member.empty() ? std::nullopt : loading::install_path(other.member);
          if (!ow || loading::dir_of(*ow) != (elsewhere == "." ? "" : elsewhere)) continue;
          const std::string f = model::file_name(*ow);
          if ((f == n || (other.load.soname && *other.load.soname == n)) && model::python_extension_module(other, f))
            ext_member = other.member;
        }
      if (!ext_member.empty()) {
        auto& note = notes[n];
        if (first(note, lib)) {
          note.member = lib.member;
          note.msg = msg + "; the " + noun + " ships it in " + elsewhere + " as the Python extension module " + ext_member +
                     ", which Python has imported before anything can open this library, so the loader finds " + n +
                     " in the process by its soname";
          note.hint = "add " + loading::origin_path_to(lib.member, elsewhere) + " to the RUNPATH to find it without that order";
        }
        continue;
      }
      if (!elsewhere.empty()) {
        msg += "; the " + noun + " ships it in " + elsewhere;
        hint = "add " + loading::origin_path_to(lib.member, elsewhere) + " to the RUNPATH";
      } else if (c.kind == LibraryKind::cuda_toolkit) {
        std::map<std::string, std::string> dirs;  // folder -> distributions
        for (int major : {12, 13})
          if (const Provision* p = c.provision(major); p && (c.majors.empty() || c.majors.contains(major))) {
            auto& d = dirs[std::string(p->directory)];
            d += (d.empty() ? "" : " or ") + std::string(p->distribution);
          }
        std::string text;
        for (const auto& [d, names] : dirs)
          text += (text.empty() ? "" : ", or ") + loading::origin_path_to(lib.member, d) + " (" + d + ", " + names + ")";
        hint = text.empty() ? "declare the package that provides it and add its folder to the RUNPATH"
                            : "add " + text + " to the RUNPATH, and declare the package";
      } else {
        hint = "ship the library in the " + noun + " (and reach it through $ORIGIN) or depend on a package that provides it";
      }
      // Loaded by name by the package's own Python code before its
      // libraries (libcudf/load.py: load_nvidia_dynamic_lib("nvrtc"),
      // nvidia.libnvcomp.load_library()).
      const PythonLoad* pre = nullptr;
      for (const auto& l : m.python_loads)
        if (l.loads(n)) {
          pre = &l;
          break;
        }
      if (pre) {
        auto& note = notes[n];
        if (first(note, lib)) {
          note.member = lib.member;
          note.msg = "DT_NEEDED " + n + " is found once the package's Python code has loaded it by name (" +
                     pre->describe() + "); nothing in this " + noun + " finds it by path";
          note.hint = "keep that load before the first import of this library, or add the providing folder to the RUNPATH";
        }
        continue;
      }
      // Provided by a dependency of the wheel?
      const Provider* declared_provider = nullptr;
      const Provider* undeclared_provider = nullptr;
      bool by_folder = false;
      for (const Provider* p : ctx.providers.find(n)) {
        if (p->distribution == own) continue;
        // A -cuNN provider of another major than this package's name
        // (librmm-cu13 for pylibraft-cu12) is no answer for it.
        if (auto pm = loading::name_major_of(p->distribution); pm && own_major && *pm != *own_major) continue;
        if (deps.count(p->distribution)) {
          if (p->ships && !p->folder.empty())
            for (const auto& e : entries)
              if (e.kind == loading::SearchEntry::Kind::origin && !e.escapes && e.dir == p->folder) by_folder = true;
          if (!declared_provider || (p->ships && !declared_provider->ships)) declared_provider = p;
        } else if (p->ships && !p->generic && !undeclared_provider &&
                   (p->from != Provider::From::run || m.kind == CheckModel::Kind::installed) && elsewhere.empty()) {
          // A framework or a dependency wheel given apart, or a
          // distribution installed beside this one; not another wheel
          // that happens to be checked in the same run.
          undeclared_provider = p;
        }
      }
      if (by_folder) continue;  // a RUNPATH into the declared dependency's folder: found by path
      if (declared_provider) {
        const Provider& p = *declared_provider;
        auto& note = notes[n];
        if (first(note, lib)) {
          note.member = lib.member;
          note.msg = "DT_NEEDED " + n + " is found once " + p.distribution + " (declared: " + deps.at(p.distribution) +
                     ") has loaded it" +
                     (p.ships ? ": it ships " + n + " in " + p.folder
                              : ": its libraries NEED " + n + " and find it") +
                     " [" + p.source + "]; nothing in this " + noun + " finds it by path";
          note.hint = "import " + p.distribution + " before this library loads (the package's __init__ usually does)" +
                      (p.ships ? ", or add " + loading::origin_path_to(lib.member, p.folder) + " to the RUNPATH"
                               : std::string());
        }
        continue;
      }
      if (undeclared_provider) {
        msg += "; " + undeclared_provider->distribution + " provides it (" + undeclared_provider->folder + ", " +
               undeclared_provider->source + "), but the " + noun + " does not declare " + undeclared_provider->distribution;
        hint = "declare " + undeclared_provider->distribution + " in Requires-Dist (and import it first), or " + hint;
      } else {
        // A declared dependency whose given wheel loads another major of
        // the name (a CUDA 12 extension beside a CUDA 13 torch).
        for (const auto& [dist, text] : deps) {
          if (dist == own || !ctx.providers.has_wheel_of(dist)) continue;
          for (const auto& other : other_majors(n))
            for (const Provider* p : ctx.providers.find(other))
              if (p->distribution == dist && msg.find(" loads " + other) == std::string::npos)
                msg += "; the declared " + dist + " (" + p->source + ") loads " + other + ", not " + n +
                       ": this library was built for another CUDA major than that " + dist;
        }
      }
      // A plugin opened with dlopen only when it is chosen at run time
      // (nvshmem's transports, onnxruntime's execution providers,
      // bitsandbytes' backends): what it NEEDs comes from the machine that
      // chooses it; the rest of the package loads without it.
      if (!loads.plugin[li].empty() && !undeclared_provider && elsewhere.empty()) {
        auto& note = notes[n];
        if (first(note, lib)) {
          note.member = lib.member;
          note.msg = msg + "; the library is a plugin opened with dlopen when it is chosen at run time (" +
                     loads.plugin[li] + "), so " + n +
                     " must come from the machine that uses it, and the rest of the package loads without it";
          note.hint = "say in the documentation what the plugin needs installed (or " + hint + ")";
        }
        continue;
      }
      auto& a = agg[n];
      if (first(a, lib)) {
        a.member = lib.member;
        a.msg = msg;
        a.hint = hint;
      }
    }
  }
  auto others = [&noun](const Agg& a) {
    return a.libs > 1 ? " (and in " + std::to_string(a.libs - 1) + " other librar" + (a.libs == 2 ? "y" : "ies") +
                            " of the " + noun + ")"
                      : std::string();
  };
  auto hint = [](const Agg& a) {
    return hint_for_folders(a.hint, loading::dir_of(loading::install_path(a.member).value_or(a.member)), a.folders);
  };
  for (const auto& [n, a] : notes) out.note(a.member, "DT_NEEDED " + n, a.msg + others(a), hint(a));
  for (const auto& [n, a] : warns) out.warn(a.member, "DT_NEEDED " + n, a.msg + others(a), hint(a));
  // One finding per name: the first library's details, and how many others.
  for (const auto& [n, a] : agg)
    out.emit(a.member, "DT_NEEDED " + n,
             a.msg + (a.libs > 1 ? " (and in " + std::to_string(a.libs - 1) + " other librar" +
                                       (a.libs == 2 ? "y" : "ies") + " of the " + noun + ")"
                                 : ""),
             hint(a));
}

}  // namespace cuwheel::check::rule_impl
