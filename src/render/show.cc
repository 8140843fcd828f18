// The `cuwheel show` report (include/cuwheel/render/show.h): each object's
// facts as the JSON of docs/json-schema.md ("show", schema 1), and the text
// report drawn from that JSON, so both formats say the same.
#include "cuwheel/render/show.h"

#include <cstdio>
#include <set>

#include "cuwheel/base/bytes.h"
#include "cuwheel/cuda/arch.h"
#include "cuwheel/cuda/compat.h"
#include "cuwheel/cuda/libclass.h"
#include "cuwheel/object/elf.h"

namespace cuwheel::render {

namespace {

using json = nlohmann::ordered_json;

const char* runtime_kind(CudaRuntime::Kind k) {
  switch (k) {
    case CudaRuntime::Kind::none: return "none";
    case CudaRuntime::Kind::shared: return "shared";
    case CudaRuntime::Kind::static_runtime: return "static";
    case CudaRuntime::Kind::is_runtime: return "is-runtime";
  }
  return "none";
}

std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + v[i];
  return s;
}

json needed_json(const std::string& soname, const std::map<std::string, std::string>& bundled) {
  json j;
  j["soname"] = soname;
  auto b = bundled.find(soname);
  if (b != bundled.end()) {
    j["class"] = "bundled";
    j["path"] = b->second;
  }
  LibraryClass c = classify_soname(soname);
  if (b == bundled.end()) {
    switch (c.kind) {
      case LibraryKind::cuda_toolkit: j["class"] = "cuda-toolkit"; break;
      case LibraryKind::nvidia_driver: j["class"] = "nvidia-driver"; break;
      case LibraryKind::system: j["class"] = "system"; break;
      case LibraryKind::unknown: j["class"] = "unknown"; break;
    }
  }
  if (!c.component.empty()) j["component"] = std::string(c.component);
  // A copy a repair tool renamed (auditwheel's libcudart-53d54daa.so.12.6.68).
  if (c.grafted) j["grafted_from"] = grafted_original(soname).value_or("");
  if (c.kind == LibraryKind::cuda_toolkit) {
    json majors = json::array();
    for (int m : c.majors.list()) majors.push_back(m);
    j["cuda_majors"] = majors;
    json prov = json::object();
    for (int m : {12, 13}) {
      if (const Provision* p = c.provision(m)) {
        if (!c.majors.contains(m)) continue;
        prov[std::to_string(m)] = json{{"distribution", std::string(p->distribution)},
                                       {"directory", std::string(p->directory)},
                                       {"toolkit_extra", std::string(p->toolkit_extra)}};
      }
    }
    j["providers"] = prov;
  }
  return j;
}

// Text output shows names read from input (sonames, paths, RUNPATH entries,
// metadata strings) through printable() (include/cuwheel/base/bytes.h), so a
// control byte in one cannot reach the terminal as itself.
std::string esc(const json& v) { return printable(v.get<std::string>()); }
std::vector<std::string> esc_all(const json& v) {
  std::vector<std::string> out;
  for (const auto& s : v) out.push_back(esc(s));
  return out;
}

std::string needed_text(const json& n) {
  std::string s = esc(n["class"]);
  if (n.contains("path")) s += " (" + esc(n["path"]) + ")";
  if (n.contains("grafted_from")) s += ", renamed copy of " + esc(n["grafted_from"]);
  if (n.contains("providers")) {
    std::vector<std::string> parts;
    for (auto& [major, p] : n["providers"].items())
      parts.push_back("CUDA " + major + ": " + esc(p["distribution"]) + " in " +
                      esc(p["directory"]));
    if (!parts.empty()) s += ", " + join(parts, "; ");
  }
  return s;
}

// One line per CUDA library the object needs versioned symbols from: the
// count, the version nodes, and the newest release a symbol name encodes.
std::string cuda_symbols_text(const json& needs) {
  struct PerFile {
    size_t count = 0;
    std::set<std::string> versions;
    std::string newest, newest_symbol;
  };
  std::map<std::string, PerFile> files;
  for (const auto& n : needs) {
    auto& f = files[esc(n["file"])];
    ++f.count;
    f.versions.insert(esc(n["version"]));
    if (n["first_release"].is_string()) {
      std::string rel = esc(n["first_release"]);
      auto key = [](const std::string& r) {
        size_t dot = r.find('.');
        return std::make_pair(std::stoi(r.substr(0, dot)), std::stoi(r.substr(dot + 1)));
      };
      if (f.newest.empty() || key(f.newest) < key(rel)) {
        f.newest = rel;
        f.newest_symbol = esc(n["symbol"]);
      }
    }
  }
  std::string out;
  bool first = true;
  for (const auto& [file, f] : files) {
    out += std::string(first ? "  cuda symbols  " : "                ") + file + ": " + std::to_string(f.count) +
           " at version " + join(std::vector<std::string>(f.versions.begin(), f.versions.end()), ", ");
    if (!f.newest.empty()) out += "; needs release " + f.newest + " (" + f.newest_symbol + ")";
    out += "\n";
    first = false;
  }
  return out;
}

// The prediction (arch::predict, the one check's device rules use) for every
// shipped desktop and data-centre GPU: {"native": [{gpu, code}], "jit":
// [{gpu, code}], "none": [gpu]}.
json runs_on_json(const DeviceSummary& s) {
  const std::vector<arch::Arch> sass = arch::parse_names(s.sass), ptx = arch::parse_names(s.ptx);
  json j{{"native", json::array()}, {"jit", json::array()}, {"none", json::array()}};
  for (unsigned gpu : arch::shipped_gpus()) {
    const arch::Prediction p = arch::predict(sass, ptx, gpu);
    const std::string name = arch::Arch{gpu}.sm_name();
    if (p.by == arch::RunsBy::native) j["native"].push_back(json{{"gpu", name}, {"code", p.code->sm_name()}});
    else if (p.by == arch::RunsBy::jit) j["jit"].push_back(json{{"gpu", name}, {"code", p.code->compute_name()}});
    else j["none"].push_back(name);
  }
  return j;
}

// "sm_75 sm_80 natively; sm_90 sm_100 by JIT (compute_90)", or "no shipped GPU".
std::string runs_on_text(const json& r) {
  std::string out;
  for (const auto& n : r["native"]) out += (out.empty() ? "" : " ") + esc(n["gpu"]);
  if (!out.empty()) out += " natively";
  std::string jit, code;
  for (const auto& n : r["jit"]) {
    std::string c = esc(n["code"]);
    if (!jit.empty()) jit += c == code ? " " : " (" + code + "), ";
    jit += esc(n["gpu"]);
    code = c;
  }
  if (!jit.empty()) out += (out.empty() ? "" : "; ") + jit + " (" + code + ") by JIT";
  return out.empty() ? "no shipped GPU" : out;
}

// The GPUs newer than the oldest one the code runs on that it cannot run
// ("no kernel image is available"); the older ones are below the build's
// floor by design and left out.
std::string no_image_text(const json& r) {
  auto sm_of = [](const json& n) { return arch::Arch::parse(n.get<std::string>())->sm; };
  unsigned floor = 0;
  for (const char* k : {"native", "jit"})
    for (const auto& n : r[k]) {
      unsigned sm = sm_of(n["gpu"]);
      if (!floor || sm < floor) floor = sm;
    }
  std::string out;
  for (const auto& n : r["none"])
    if (floor && sm_of(n) > floor) out += (out.empty() ? "" : " ") + esc(n);
  return out;
}

json device_json(const DeviceSummary& s) {
  json j;
  j["entries"] = s.entries;
  j["sass"] = s.sass;
  json ptx = json::array();
  for (size_t i = 0; i < s.ptx.size(); ++i) ptx.push_back(json{{"arch", s.ptx[i]}, {"isa", s.ptx_isa[i]}});
  j["ptx"] = ptx;
  j["ltoir"] = s.ltoir;
  j["compression"] = s.compression;
  j["kernels"] = s.kernels;
  j["kernels_complete"] = s.kernels_known;
  j["stored_bytes"] = s.stored_bytes;
  json data = json::array();
  for (const auto& [section, n] : s.data_sections) data.push_back(json{{"section", section}, {"containers", n}});
  j["data_sections"] = data;
  // An object with LTO-IR gets its final code at the device link that
  // consumes it: no prediction for it (as no-ptx-fallback makes none).
  if ((!s.sass.empty() || !s.ptx.empty()) && s.ltoir.empty()) j["runs_on"] = runs_on_json(s);
  return j;
}

}  // namespace

nlohmann::ordered_json show_object_json(const ShowObject& r, const std::map<std::string, std::string>& bundled) {
  json j;
  j["path"] = r.display;
  if (!r.member.empty()) j["member"] = r.member;
  if (!r.archive_member.empty()) j["archive_member"] = r.archive_member;
  if (!r.owner.empty()) j["distribution"] = r.owner;
  if (r.load) {
    const LoadFacts& lf = *r.load;
    j["elf_type"] = lf.type == elf::ET_DYN ? "shared-object" : lf.type == elf::ET_EXEC ? "executable"
                    : lf.type == elf::ET_REL ? "relocatable" : "other";
    j["soname"] = lf.soname ? json(*lf.soname) : json(nullptr);
    json needed = json::array();
    for (const auto& n : lf.needed) needed.push_back(needed_json(n, bundled));
    j["needed"] = needed;
    j["rpath"] = lf.rpath;
    j["runpath"] = lf.runpath;
    json rt;
    rt["kind"] = runtime_kind(lf.runtime.kind);
    if (lf.runtime.major) rt["major"] = lf.runtime.major;
    if (!lf.runtime.soname.empty()) rt["soname"] = lf.runtime.soname;
    if (!lf.runtime.evidence.empty()) rt["evidence"] = lf.runtime.evidence;
    j["cuda_runtime"] = rt;
    json needs = json::array();
    for (const auto& n : r.symbol_needs)
      needs.push_back(json{{"symbol", n.symbol},
                           {"version", n.version},
                           {"file", n.file},
                           {"first_release", n.first_release ? json(n.first_release->str()) : json(nullptr)}});
    j["cuda_symbol_needs"] = needs;
  }
  j["device_code"] = r.device ? device_json(*r.device) : json(nullptr);
  j["warnings"] = r.warnings;
  return j;
}

std::map<std::string, std::string> bundled_names(const std::vector<ShowObject>& objects) {
  std::map<std::string, std::string> bundled;
  for (const auto& r : objects) {
    if (r.member.empty()) continue;
    std::string name = r.member.substr(r.member.rfind('/') + 1);
    bundled.emplace(name, r.member);
    if (r.load && r.load->soname) bundled.emplace(*r.load->soname, r.member);
  }
  return bundled;
}

nlohmann::ordered_json show_wheel_json(const WheelSummary& s) {
  json j;
  j["filename"] = s.filename;
  j["name"] = s.name;
  j["version"] = s.version;
  j["metadata_version"] = s.metadata_version;
  if (s.requires_python) j["requires_python"] = *s.requires_python;
  j["filename_tags"] = s.filename_tags;
  j["wheel_tags"] = s.wheel_tags;
  j["requires_dist"] = s.requires_dist;
  j["provides_extra"] = s.provides_extra;
  return j;
}

std::string render_show_text(const nlohmann::ordered_json& in) {
  std::string out;
  if (in.contains("wheel")) {
    const json& w = in["wheel"];
    out += esc(w["filename"]) + "\n";
    out += "  name          " + esc(w["name"]) + " " + esc(w["version"]) + "\n";
    out += "  tags          " + join(esc_all(w["wheel_tags"]), " ") + "\n";
    auto req = esc_all(w["requires_dist"]);
    out += "  requires-dist " + (req.empty() ? std::string("-") : join(req, "\n                ")) + "\n";
    out += "\n";
  }
  for (const auto& o : in["objects"]) {
    out += esc(o["path"]) + "\n";
    if (o.contains("distribution")) out += "  distribution  " + esc(o["distribution"]) + "\n";
    if (o.contains("soname")) {
      out += "  soname        " + (o["soname"].is_null() ? std::string("-") : esc(o["soname"])) + "\n";
      bool first = true;
      for (const auto& n : o["needed"]) {
        char buf[64];
        std::snprintf(buf, sizeof buf, "%-24s ", esc(n["soname"]).c_str());
        out += std::string(first ? "  needed        " : "                ") + buf + needed_text(n) + "\n";
        first = false;
      }
      if (first) out += "  needed        -\n";
      auto rp = esc_all(o["rpath"]);
      auto rn = esc_all(o["runpath"]);
      if (!rp.empty()) out += "  rpath         " + join(rp, ":") + "\n";
      if (!rn.empty()) out += "  runpath       " + join(rn, ":") + "\n";
      if (rp.empty() && rn.empty()) out += "  runpath       -\n";
      const json& rt = o["cuda_runtime"];
      std::string k = esc(rt["kind"]);
      std::string rts = k == "shared"   ? "shared, " + esc(rt["soname"])
                        : k == "static" ? "static (" + esc(rt["evidence"]) + ")"
                        : k == "is-runtime" ? "this is the CUDA " + std::to_string(rt["major"].get<int>()) + " runtime"
                                            : "none";
      out += "  cuda runtime  " + rts + "\n";
      out += cuda_symbols_text(o["cuda_symbol_needs"]);
    }
    const json& dc = o["device_code"];
    if (dc.is_null() || dc["entries"].get<size_t>() == 0) {
      out += "  device code   none\n";
    } else {
      auto sass = esc_all(dc["sass"]);
      out += "  sass          " + (sass.empty() ? std::string("-") : join(sass, " ")) + "\n";
      std::vector<std::string> ptx;
      for (const auto& p : dc["ptx"]) {
        std::string s = esc(p["arch"]);
        if (!esc(p["isa"]).empty()) s += " (ISA " + esc(p["isa"]) + ")";
        ptx.push_back(s);
      }
      out += "  ptx           " + (ptx.empty() ? std::string("-") : join(ptx, ", ")) + "\n";
      if (dc.contains("runs_on")) {
        out += "  runs on       " + runs_on_text(dc["runs_on"]) + "\n";
        std::string none = no_image_text(dc["runs_on"]);
        if (!none.empty()) out += "  no image for  " + none + "\n";
      }
      auto lto = esc_all(dc["ltoir"]);
      if (!lto.empty()) out += "  lto-ir        " + join(lto, " ") + "\n";
      out += "  compression   " + join(esc_all(dc["compression"]), ", ") + "\n";
      for (const auto& d : dc["data_sections"]) {
        size_t n = d["containers"].get<size_t>();
        // A section whose name does not read (a lying e_shstrndx) is named by its absence.
        const std::string section = esc(d["section"]);
        out += "  loaded itself " + std::to_string(n) + (n == 1 ? " container" : " containers") + " in " +
               (section.empty() ? std::string("a section without a readable name") : section) + " (counted above; cuobjdump does not list them)\n";
      }
      out += "  kernels       " + std::to_string(dc["kernels"].get<size_t>()) +
             (dc["kernels_complete"].get<bool>() ? "" : " (some payloads unreadable)") + "\n";
    }
    for (const auto& w : o["warnings"]) out += "  warning       " + esc(w) + "\n";
    out += "\n";
  }
  return out;
}

}  // namespace cuwheel::render
