// `cuwheel probe`: with no path, this machine's NVIDIA driver and GPUs;
// with paths, will their device code run on the GPUs asked about (or this
// machine's) with that driver. docs/probe.md.
//
// Exit status: with paths, 0 when every GPU runs every library natively,
// 1 when some only by JIT, partially or unknown, 2 when some cannot run
// (209, 222) or an input is unreadable; with no path, 0 when a driver
// answers with at least one GPU, 1 for every other diagnosis. Usage
// errors (an unknown --gpu name, a --driver that is no version) exit 2.
#include <CLI/CLI.hpp>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <iostream>
#include <map>
#include <set>
#include <cstring>
#include <tuple>

#include "cli.h"
#include "commands.h"
#include "cuwheel/base/bytes.h"
#include "cuwheel/base/source.h"
#include "cuwheel/object/fatbin.h"
#include "cuwheel/wheel/wheel.h"
#include "cuwheel/cuda/gpus.h"
#include "cuwheel/model/loading.h"
#include "cuwheel/model/model.h"
#include "cuwheel/probe/host.h"
#include "cuwheel/probe/probe.h"

namespace cuwheel::cli {

namespace {

using json = nlohmann::ordered_json;
using probe::Verdict;

struct ProbeOptions {
  std::vector<std::string> paths;
  std::vector<std::string> gpus;
  std::string driver;
  std::string format = "text";
  bool load = false;
  std::string load_pass;  // internal: the child of --load
} g_opts;

std::string esc(const std::string& s) { return printable(s); }

std::string cc_of(unsigned sm) { return std::to_string(sm / 10) + "." + std::to_string(sm % 10); }

// "sm_120 (RTX 5090: GeForce RTX 5090)", "sm_90 (NVIDIA H200 (device 0))", "sm_86".
std::string gpu_text(const probe::Gpu& g) {
  std::string s = arch::Arch{g.sm}.sm_name();
  std::string extra = g.label == s ? "" : g.label;
  if (!g.matched.empty() && g.matched != g.label) extra += (extra.empty() ? "" : ": ") + g.matched;
  return extra.empty() ? s : s + " (" + esc(extra) + ")";
}

json gpu_json(const probe::Gpu& g) {
  return json{{"sm", arch::Arch{g.sm}.sm_name()},
              {"compute_capability", cc_of(g.sm)},
              {"label", g.label},
              {"product", g.matched.empty() ? json(nullptr) : json(g.matched)},
              {"known", g.known}};
}

json driver_json(const std::optional<probe::DriverLimit>& d) {
  if (!d) return nullptr;
  return json{{"given", d->given},
              {"cuda", d->cuda.to_string()},
              {"max_ptx_isa", d->max_isa.to_string()},
              {"open_ended", d->open_ended}};
}

std::string verdict_text(Verdict v) {
  switch (v) {
    case Verdict::native: return "native";
    case Verdict::jit: return "JIT";
    case Verdict::unknown: return "unknown";
    case Verdict::partial: return "partial";
    case Verdict::ptx_unsupported: return "FAILS 222";
    case Verdict::no_image: return "FAILS 209";
    case Verdict::driver_too_old: return "FAILS 35";
  }
  return "";
}

// The sentence for a library verdict: the image reason, with the image
// counts when they differ.
std::string library_reason(const probe::LibraryVerdict& lv) {
  if (lv.verdict != Verdict::partial) {
    std::string r = lv.worst.reason;
    if (lv.images > 1 && lv.count[static_cast<size_t>(lv.worst.verdict)] != lv.images)
      r += " (weakest of " + std::to_string(lv.images) + " images)";
    return r;
  }
  size_t fails = lv.count[static_cast<size_t>(Verdict::no_image)] + lv.count[static_cast<size_t>(Verdict::ptx_unsupported)];
  return std::to_string(fails) + " of " + std::to_string(lv.images) + " images cannot run (their kernels fail with " +
         std::to_string(probe::cuda_error(lv.worst.verdict)) + " when called: " + lv.worst.reason +
         "); the others: " + lv.best.reason;
}

json image_counts(const probe::LibraryVerdict& lv) {
  json j = json::object();
  for (size_t i = 0; i < probe::kVerdicts; ++i)
    if (lv.count[i]) j[std::string(probe::to_string(static_cast<Verdict>(i)))] = lv.count[i];
  return j;
}

json host_json(const probe::HostReport& h) {
  json devices = json::array();
  for (const auto& d : h.api.devices)
    devices.push_back({{"ordinal", d.ordinal},
                       {"name", d.name},
                       {"compute_capability", d.cc_major ? json(cc_of(static_cast<unsigned>(d.cc_major * 10 + d.cc_minor))) : json(nullptr)}});
  json nvml_devices = json::array();
  for (const auto& d : h.nvml.devices) {
    json mig = nullptr;
    if (d.mig_result == 0) mig = d.mig_current ? "enabled" : "disabled";
    else if (d.mig_result == 3) mig = "not-supported";
    nvml_devices.push_back({{"index", d.index},
                            {"name", d.name},
                            {"compute_capability", d.cc_major ? json(cc_of(static_cast<unsigned>(d.cc_major * 10 + d.cc_minor))) : json(nullptr)},
                            {"mig", mig},
                            {"mig_pending", d.mig_result == 0 ? json(d.mig_pending != 0) : json(nullptr)}});
  }
  json copies = json::array();
  for (const auto& [path, via] : h.libcuda_copies) copies.push_back({{"path", path}, {"via", via}});
  auto result = [](int code) -> json {
    if (code < 0) return nullptr;
    std::string_view n = host::cuda_result_name(code);
    return json{{"code", code}, {"name", n.empty() ? json(nullptr) : json(std::string(n))}};
  };
  return json{
      {"state", std::string(probe::to_string(h.state))},
      {"summary", h.summary},
      {"notes", h.notes},
      {"kernel_driver", h.kernel_driver.empty() ? json(nullptr) : json(h.kernel_driver)},
      {"kernel_driver_error", h.kernel_error.empty() ? json(nullptr) : json(h.kernel_error)},
      {"driver_api",
       {{"library", h.api.library},
        {"loaded", h.api.loaded},
        {"loaded_path", h.api.loaded_path.empty() ? json(nullptr) : json(h.api.loaded_path)},
        {"load_error", h.api.load_error.empty() ? json(nullptr) : json(h.api.load_error)},
        {"missing_symbols", h.api.missing_symbols},
        {"cuda_version", h.api.version_result == 0 ? json(host::cuda_version_string(h.api.driver_version)) : json(nullptr)},
        {"cuInit", result(h.api.init_result)},
        {"devices", devices}}},
      {"nvml",
       {{"library", h.nvml.library},
        {"loaded", h.nvml.loaded},
        {"load_error", h.nvml.load_error.empty() ? json(nullptr) : json(h.nvml.load_error)},
        {"driver_version", h.nvml.driver_version.empty() ? json(nullptr) : json(h.nvml.driver_version)},
        {"cuda_version", h.nvml.cuda_version_result == 0 ? json(host::cuda_version_string(h.nvml.cuda_driver_version)) : json(nullptr)},
        {"devices", nvml_devices}}},
      {"libcuda_files", copies},
  };
}

void print_host_text(const probe::HostReport& h) {
  std::cout << "driver: " << esc(h.summary) << "\n";
  std::cout << "  kernel module      " << (h.kernel_driver.empty() ? "none (" + esc(h.kernel_error) + ")" : h.kernel_driver) << "\n";
  std::cout << "  libcuda            ";
  if (!h.api.loaded) std::cout << "not loaded (" << esc(h.api.load_error) << ")\n";
  else {
    std::cout << esc(h.api.loaded_path.empty() ? h.api.library : h.api.loaded_path);
    if (h.api.version_result == 0) std::cout << ", CUDA " << host::cuda_version_string(h.api.driver_version);
    if (h.api.init_result > 0) std::cout << ", cuInit " << host::cuda_result_name(h.api.init_result) << " (" << h.api.init_result << ")";
    std::cout << "\n";
  }
  std::cout << "  NVML               ";
  if (!h.nvml.loaded) std::cout << "not loaded\n";
  else if (h.nvml.init_result != 0) std::cout << "nvmlInit failed (" << h.nvml.init_result << ")\n";
  else
    std::cout << "driver " << esc(h.nvml.driver_version) << ", CUDA " << host::cuda_version_string(h.nvml.cuda_driver_version)
              << "\n";
  for (const auto& d : h.api.devices) {
    std::cout << "  GPU " << d.ordinal << "              " << esc(d.name);
    if (d.cc_major) std::cout << ", compute capability " << d.cc_major << "." << d.cc_minor;
    for (const auto& n : h.nvml.devices)
      if (n.name == d.name && n.index == static_cast<unsigned>(d.ordinal) && n.mig_result >= 0)
        std::cout << ", MIG " << (n.mig_result == 3 ? "not supported" : n.mig_current ? "enabled" : "disabled");
    std::cout << "\n";
  }
  for (const auto& n : h.notes) std::cout << "  note: " << esc(n) << "\n";
}

struct LibraryResult {
  std::string member;
  size_t images = 0;
  std::vector<probe::LibraryVerdict> per_gpu;  // parallel to the GPUs
  size_t index = 0;     // into CheckModel::libraries
  std::string plugin;   // why it is a backend opened only when chosen (model::plugin_evidence), "" otherwise
  /// Per GPU: its failure does not decide the input's answer (see judge_model).
  std::vector<bool> excused;
};

struct InputResult {
  std::string path;
  std::string kind;
  std::string distribution;            // installed: "name version" ("" otherwise)
  bool read_error = false;             // a member could not be read
  std::vector<LibraryResult> libraries;
  std::vector<Verdict> verdicts;       // per GPU: the weakest library's
  std::vector<std::string> weakest;    // per GPU: that library ("" when none)
  std::vector<std::string> reasons;    // per GPU
};

const char* kind_name(model::CheckModel::Kind k) {
  switch (k) {
    case model::CheckModel::Kind::wheel: return "wheel";
    case model::CheckModel::Kind::library: return "library";
    case model::CheckModel::Kind::directory: return "directory";
    case model::CheckModel::Kind::installed: return "installed";
  }
  return "";
}

InputResult judge_model(const model::CheckModel& m, const std::vector<probe::Gpu>& gpus,
                        const std::optional<probe::DriverLimit>& driver) {
  InputResult r;
  r.path = m.path;
  r.kind = kind_name(m.kind);
  // One distribution of an installed environment: the folder and which.
  if (m.kind == model::CheckModel::Kind::installed)
    r.distribution = m.metadata ? m.metadata->name + " " + m.metadata->version : m.dist_info;
  r.read_error = !m.read_errors.empty();
  for (size_t li = 0; li < m.libraries.size(); ++li) {
    const auto& lib = m.libraries[li];
    if (!lib.device_read) continue;
    std::vector<probe::Image> images = probe::images_of(lib.device);
    if (images.empty()) continue;
    LibraryResult lr;
    lr.index = li;
    lr.member = lib.member;
    if (!lib.archive_member.empty()) lr.member += (lr.member.empty() ? "" : ":") + lib.archive_member;
    if (lr.member.empty()) lr.member = m.path;
    lr.images = images.size();
    for (const auto& g : gpus) lr.per_gpu.push_back(probe::judge_library(images, g, driver));
    // Whatever its device code, a library whose CUDA runtime is of a newer
    // major than the driver supports fails at its first CUDA call.
    if (driver && lib.is_elf)
      if (auto need = probe::runtime_need(lib.load.runtime, images))
        for (auto& lv : lr.per_gpu) probe::apply_runtime_need(lv, *need, *driver);
    lr.excused.assign(gpus.size(), false);
    r.libraries.push_back(std::move(lr));
  }
  // Backends chosen at run time by the CUDA version present (bitsandbytes'
  // libbitsandbytes_cuda118.so ... _cuda130.so, opened with dlopen): one
  // built for a newer CUDA major than the driver does not decide the
  // input's answer while another backend of the input starts there; the
  // package loads that one. Its own line still says FAILS 35.
  auto too_old = [](const LibraryResult& l, size_t i) { return l.per_gpu[i].verdict == Verdict::driver_too_old; };
  bool any_too_old = false;
  for (const auto& l : r.libraries)
    for (size_t i = 0; i < gpus.size(); ++i) any_too_old = any_too_old || too_old(l, i);
  if (any_too_old && r.libraries.size() > 1) {
    for (auto& l : r.libraries) l.plugin = model::plugin_evidence(m, l.index);
    for (size_t i = 0; i < gpus.size(); ++i) {
      bool other_starts = false;
      for (const auto& l : r.libraries) other_starts = other_starts || (!l.plugin.empty() && !too_old(l, i));
      if (other_starts)
        for (auto& l : r.libraries) l.excused[i] = !l.plugin.empty() && too_old(l, i);
    }
  }
  for (size_t i = 0; i < gpus.size(); ++i) {
    if (!m.read_errors.empty()) {
      // A member that could not be read may hold the code that fails: the
      // input's answer is at best unknown (its error is reported apart).
      bool weaker = r.libraries.empty();
      if (!weaker) {
        Verdict best = Verdict::native;
        for (const auto& l : r.libraries) best = probe::weakest(best, l.per_gpu[i].verdict);
        weaker = probe::weakest(best, Verdict::unknown) == Verdict::unknown;
      }
      if (weaker) {
        r.verdicts.push_back(Verdict::unknown);
        std::string member = m.read_errors.front().first;
        if (member.size() > m.path.size() + 1 && member.compare(0, m.path.size() + 1, m.path + ":") == 0)
          member = member.substr(m.path.size() + 1);  // "WHEEL:MEMBER": the member, as for other libraries
        r.weakest.push_back(member);
        r.reasons.push_back(std::to_string(m.read_errors.size()) + " member" + (m.read_errors.size() == 1 ? "" : "s") +
                            " could not be read (" + m.read_errors.front().first + "); the rest " +
                            (r.libraries.empty() ? "has no device code" : "is answered below"));
        continue;
      }
    }
    if (r.libraries.empty()) {
      r.verdicts.push_back(Verdict::unknown);
      r.weakest.emplace_back();
      r.reasons.emplace_back("no device code (no cubin, PTX or LTO-IR outside relocatable objects): nothing to predict");
      continue;
    }
    size_t w = 0;
    while (w + 1 < r.libraries.size() && r.libraries[w].excused[i]) ++w;
    for (size_t l = w + 1; l < r.libraries.size(); ++l)
      if (!r.libraries[l].excused[i] &&
          probe::weakest(r.libraries[l].per_gpu[i].verdict, r.libraries[w].per_gpu[i].verdict) ==
              r.libraries[l].per_gpu[i].verdict &&
          r.libraries[l].per_gpu[i].verdict != r.libraries[w].per_gpu[i].verdict)
        w = l;
    r.verdicts.push_back(r.libraries[w].per_gpu[i].verdict);
    r.weakest.push_back(r.libraries[w].member);
    r.reasons.push_back(library_reason(r.libraries[w].per_gpu[i]));
  }
  return r;
}

void print_input_text(const InputResult& r, const std::vector<probe::Gpu>& gpus) {
  std::cout << esc(r.path) << (r.distribution.empty() ? "" : " (" + esc(r.distribution) + ")") << "\n";
  size_t width = 0;
  for (const auto& g : gpus) width = std::max(width, gpu_text(g).size());
  for (size_t i = 0; i < gpus.size(); ++i) {
    std::string g = gpu_text(gpus[i]);
    std::string v = verdict_text(r.verdicts[i]);
    std::cout << "  " << g << std::string(width - g.size() + 2, ' ') << v << std::string(v.size() < 10 ? 10 - v.size() : 1, ' ');
    if (r.libraries.size() > 1 && r.verdicts[i] != Verdict::native) std::cout << esc(r.weakest[i]) << ": ";
    std::cout << esc(r.reasons[i]) << "\n";
  }
  // Per library, the GPUs grouped by verdict: for two libraries or more, and
  // for one whose answer the line above does not give (an unread member
  // made the input's "unknown", and its reason points here).
  if (r.libraries.size() < 2 && !(r.read_error && !r.libraries.empty())) return;
  for (const auto& lib : r.libraries) {
    std::cout << "  " << esc(lib.member) << " (" << lib.images << " image" << (lib.images == 1 ? "" : "s");
    if (std::find(lib.excused.begin(), lib.excused.end(), true) != lib.excused.end())
      std::cout << "; a backend chosen at run time (" << esc(lib.plugin)
                << "): where the driver is too old for it, another backend of the package starts, so it is not counted";
    std::cout << ")\n";
    std::map<Verdict, std::vector<size_t>> groups;
    for (size_t i = 0; i < gpus.size(); ++i) groups[lib.per_gpu[i].verdict].push_back(i);
    for (const auto& [v, idx] : groups) {
      std::string list;
      for (size_t i : idx) list += (list.empty() ? "" : " ") + arch::Arch{gpus[i].sm}.sm_name();
      std::cout << "    " << verdict_text(v) << ": " << list;
      if (idx.size() == 1 || v != Verdict::native) std::cout << " (" << esc(library_reason(lib.per_gpu[idx.front()])) << ")";
      std::cout << "\n";
    }
  }
}

json input_json(const InputResult& r, const std::vector<probe::Gpu>& gpus) {
  json verdicts = json::array();
  for (size_t i = 0; i < gpus.size(); ++i)
    verdicts.push_back({{"gpu", arch::Arch{gpus[i].sm}.sm_name()},
                        {"verdict", std::string(probe::to_string(r.verdicts[i]))},
                        {"cuda_error", probe::cuda_error(r.verdicts[i]) ? json(probe::cuda_error(r.verdicts[i])) : json(nullptr)},
                        {"library", r.weakest[i].empty() ? json(nullptr) : json(r.weakest[i])},
                        {"reason", r.reasons[i]}});
  json libs = json::array();
  for (const auto& lib : r.libraries) {
    json per = json::array();
    for (size_t i = 0; i < gpus.size(); ++i) {
      const auto& lv = lib.per_gpu[i];
      const probe::ImageVerdict& iv = lv.worst;
      per.push_back({{"gpu", arch::Arch{gpus[i].sm}.sm_name()},
                     {"verdict", std::string(probe::to_string(lv.verdict))},
                     {"cuda_error", probe::cuda_error(lv.worst.verdict) ? json(probe::cuda_error(lv.worst.verdict)) : json(nullptr)},
                     {"code", iv.code ? json(iv.verdict == Verdict::native ? iv.code->sm_name() : iv.code->compute_name()) : json(nullptr)},
                     {"ptx_isa", iv.ptx_isa.empty() ? json(nullptr) : json(iv.ptx_isa)},
                     {"needs_cuda", iv.needs_cuda.empty() ? json(nullptr) : json(iv.needs_cuda)},
                     {"needs_driver", iv.needs_driver.empty() ? json(nullptr) : json(iv.needs_driver)},
                     {"reason", library_reason(lv)},
                     {"images", image_counts(lv)}});
    }
    json excused = json::array();
    for (size_t i = 0; i < gpus.size(); ++i)
      if (lib.excused[i]) excused.push_back(arch::Arch{gpus[i].sm}.sm_name());
    libs.push_back({{"member", lib.member},
                    {"images", lib.images},
                    {"plugin", lib.plugin.empty() ? json(nullptr) : json(lib.plugin)},
                    {"not_counted", excused},
                    {"gpus", per}});
  }
  json j{{"path", r.path}, {"kind", r.kind}, {"verdicts", verdicts}, {"libraries", libs}};
  if (!r.distribution.empty()) j["distribution"] = r.distribution;
  return j;
}


// --- --load: the driver's own verdict ---------------------------------------

// The passes of --load: each runs in a child process, because the driver
// reads these variables once, at cuInit. CUDA_MODULE_LOADING=EAGER in all
// of them, so that a load compiles every kernel before it returns and a
// JIT failure cannot hide behind lazy loading.
struct LoadPass {
  const char* name;
  std::vector<std::pair<const char*, const char*>> env;
  bool ptx_only;  // the driver ignores cubins (CUDA_FORCE_PTX_JIT=1)
};
const std::vector<LoadPass>& load_passes() {
  static const std::vector<LoadPass> kPasses = {
      {"default", {{"CUDA_MODULE_LOADING", "EAGER"}}, false},
      {"force-ptx-jit", {{"CUDA_MODULE_LOADING", "EAGER"}, {"CUDA_FORCE_PTX_JIT", "1"}, {"CUDA_CACHE_DISABLE", "1"}}, true},
      {"no-jit-cache", {{"CUDA_MODULE_LOADING", "EAGER"}, {"CUDA_CACHE_DISABLE", "1"}}, false},
  };
  return kPasses;
}

// The bytes of one library of a model: the file, the wheel member, or the
// folder's file.
Expected<Blob> library_bytes(const model::CheckModel& m, const model::LibraryModel& lib) {
  if (!lib.archive_member.empty()) return Error{"a static archive member is linked, not loaded"};
  if (m.kind == model::CheckModel::Kind::wheel) {
    auto w = Wheel::open(m.path);
    if (!w) return w.error();
    const ZipMember* z = w->find(lib.member);
    if (!z) return Error{m.path + ": no member " + lib.member};
    return w->read(*z);
  }
  if (lib.member.empty()) return Blob::map_file(m.path);
  return Blob::map_file(m.path + "/" + lib.member);
}

// The bytes cuModuleLoadData gets for an image: its whole container (the
// 16-byte header, fatbin-format.md section 2, and the entries), or a raw
// cubin as it is.
Expected<ByteView> image_bytes(ByteView file, const DeviceCode& dc, const probe::Image& img) {
  if (dc.kind == ObjectKind::cubin) return file;
  if (img.offset < fatbin::kContainerHeaderSize) return Error{"image at " + hex(img.offset) + " has no container header"};
  const uint64_t start = img.offset - fatbin::kContainerHeaderSize;
  uint32_t magic = 0;
  uint64_t fat_size = 0;
  if (!load_le(file, start, magic) || magic != fatbin::kContainerMagic || !load_le(file, start + 8, fat_size))
    return Error{"no fatbin container header at " + hex(start)};
  auto v = slice(file, start, fatbin::kContainerHeaderSize + fat_size);
  if (!v) return Error{"container at " + hex(start) + " runs past the end of the file"};
  return *v;
}

// The child: load every image on every device, one JSON object per line.
int run_load_pass(const ProbeOptions& o) {
  host::DriverApiReport api = host::query_driver_api();
  if (!api.loaded || api.init_result != 0 || api.device_count <= 0) {
    std::cout << json{{"fatal", api.loaded ? "cuInit: " + std::to_string(api.init_result) : api.load_error}}.dump() << "\n";
    return kExitUnreadable;
  }
  model::BuildOptions bo;
  bo.hash_members = false;
  for (const auto& path : o.paths) {
    auto ms = model::build_models(path, bo);
    if (!ms) continue;  // the parent reports it
    for (const auto& m : *ms) {
      if (m.unreadable) continue;
      for (const auto& lib : m.libraries) {
        if (!lib.device_read) continue;
        std::vector<probe::Image> images = probe::images_of(lib.device);
        if (images.empty()) continue;
        auto bytes = library_bytes(m, lib);
        for (size_t i = 0; i < images.size(); ++i) {
          json row{{"input", m.path}, {"library", lib.member}, {"image", i}};
          if (!bytes) {
            row["error"] = bytes.error().message();
            std::cout << row.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
            continue;
          }
          auto img = image_bytes(bytes->view(), lib.device, images[i]);
          if (!img) {
            row["error"] = img.error().message();
            std::cout << row.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
            continue;
          }
          for (int d = 0; d < api.device_count; ++d) {
            host::ModuleLoad l = host::load_module(api.library, d, img->data(), img->size());
            row["device"] = d;
            row["result"] = l.result;
            row["error"] = l.error.empty() ? json(nullptr) : json(l.error);
            row["jit_log"] = l.jit_log.empty() ? json(nullptr) : json(l.jit_log);
            std::cout << row.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
          }
        }
      }
    }
  }
  std::cout.flush();
  return kExitOk;
}

// Runs this program again as `probe --load-pass NAME PATH...` with the
// pass's environment; returns its standard output.
Expected<std::string> spawn_pass(const LoadPass& pass, const std::vector<std::string>& paths) {
  int fds[2];
  if (::pipe(fds) != 0) return Error{std::string("pipe: ") + std::strerror(errno)};
  std::vector<std::string> args{"cuwheel", "probe", "--load-pass", pass.name, "--"};
  args.insert(args.end(), paths.begin(), paths.end());
  pid_t pid = ::fork();
  if (pid < 0) return Error{std::string("fork: ") + std::strerror(errno)};
  if (pid == 0) {
    ::dup2(fds[1], 1);
    ::close(fds[0]);
    ::close(fds[1]);
    for (const auto& [k, v] : pass.env) ::setenv(k, v, 1);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv("/proc/self/exe", argv.data());
    _exit(127);
  }
  ::close(fds[1]);
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (!WIFEXITED(status)) return Error{std::string("the ") + pass.name + " pass was killed by signal " + std::to_string(WTERMSIG(status))};
  return out;
}

// The CUresult a load gives when the prediction holds: 0 for native and
// JIT, 209 and 222 for the failures; nullopt when there is nothing to
// compare (unknown, an image of LTO-IR only).
std::optional<int> expected_result(const probe::ImageVerdict& v, const probe::Image& img) {
  if (img.sass.empty() && img.ptx.empty()) return std::nullopt;
  switch (v.verdict) {
    case Verdict::native:
    case Verdict::jit: return 0;
    case Verdict::no_image: return 209;
    case Verdict::ptx_unsupported: return 222;
    default: return std::nullopt;
  }
}

std::string result_name(int code) {
  std::string_view n = host::cuda_result_name(code);
  return std::to_string(code) + (n.empty() ? "" : " " + std::string(n));
}

int run_load(const ProbeOptions& o, const probe::HostReport& host, const std::optional<probe::DriverLimit>& driver) {
  if (host.state != probe::HostState::ok) {
    print_error("--load", host.summary);
    return kExitUnreadable;
  }
  // Each pass's loads, by (input, library, image, device).
  using Key = std::tuple<std::string, std::string, size_t, int>;
  std::vector<std::map<Key, json>> loads(load_passes().size());
  for (size_t p = 0; p < load_passes().size(); ++p) {
    auto out = spawn_pass(load_passes()[p], o.paths);
    if (!out) {
      print_error("--load", out.error().message());
      return kExitUnreadable;
    }
    size_t pos = 0;
    while (pos < out->size()) {
      size_t nl = out->find('\n', pos);
      if (nl == std::string::npos) nl = out->size();
      json row = json::parse(out->substr(pos, nl - pos), nullptr, false);
      pos = nl + 1;
      if (row.is_discarded()) continue;
      if (row.contains("fatal")) {
        print_error("--load", std::string(load_passes()[p].name) + " pass: " + row["fatal"].get<std::string>());
        return kExitUnreadable;
      }
      int dev = row.contains("device") ? row["device"].get<int>() : -1;
      loads[p][Key{row["input"], row["library"], row["image"].get<size_t>(), dev}] = row;
    }
  }
  // The static prediction for the same images, compared.
  model::BuildOptions bo;
  bo.hash_members = false;
  size_t compared = 0, agreed = 0, not_compared = 0;
  json inputs = json::array();
  json unreadable = json::array();
  for (const auto& path : o.paths) {
    auto ms = model::build_models(path, bo);
    if (!ms) {
      print_error(path, ms.error().message());
      unreadable.push_back({{"where", path}, {"message", ms.error().message()}});
      continue;
    }
    for (const auto& m : *ms) {
      for (const auto& [where, msg] : m.read_errors) {
        print_error(where, msg);
        unreadable.push_back({{"where", where}, {"message", msg}});
      }
      if (m.unreadable) continue;
      if (o.format == "text") std::cout << esc(m.path) << "\n";
      json jlibs = json::array();
      for (const auto& lib : m.libraries) {
        if (!lib.device_read) continue;
        std::vector<probe::Image> images = probe::images_of(lib.device);
        if (images.empty()) continue;
        const std::string member = lib.member.empty() ? m.path : lib.member;
        if (o.format == "text") std::cout << "  " << esc(member) << "\n";
        json jimages = json::array();
        for (size_t i = 0; i < images.size(); ++i) {
          probe::Image ptx_only = images[i];
          ptx_only.sass.clear();
          for (size_t g = 0; g < host.gpus.size(); ++g) {
            const int dev = static_cast<int>(g);
            json jp = json::array();
            std::string line;
            bool all_agree = true, any_compared = false;
            for (size_t p = 0; p < load_passes().size(); ++p) {
              const LoadPass& pass = load_passes()[p];
              probe::ImageVerdict v = probe::judge_image(pass.ptx_only ? ptx_only : images[i], host.gpus[g], driver);
              if (pass.ptx_only && !images[i].sass.empty()) v.reason += " (CUDA_FORCE_PTX_JIT=1: the cubins are ignored)";
              std::optional<int> want = expected_result(v, images[i]);
              auto it = loads[p].find(Key{m.path, lib.member, i, dev});
              json got = nullptr, err = nullptr, log = nullptr;
              if (it != loads[p].end()) {
                got = it->second.value("result", json(nullptr));
                err = it->second.value("error", json(nullptr));
                log = it->second.value("jit_log", json(nullptr));
              }
              std::optional<bool> agree;
              if (want && got.is_number_integer() && got.get<int>() >= 0) {
                agree = got.get<int>() == *want;
                any_compared = true;
                ++compared;
                if (*agree) ++agreed;
                else all_agree = false;
              } else {
                ++not_compared;
              }
              jp.push_back({{"pass", pass.name},
                            {"predicted", std::string(probe::to_string(v.verdict))},
                            {"predicted_result", want ? json(*want) : json(nullptr)},
                            {"result", got},
                            {"result_name", got.is_number_integer() && got.get<int>() >= 0
                                                ? json(std::string(host::cuda_result_name(got.get<int>())))
                                                : json(nullptr)},
                            {"agree", agree ? json(*agree) : json(nullptr)},
                            {"reason", v.reason},
                            {"error", err},
                            {"jit_log", log}});
              line += std::string(p ? "; " : "") + pass.name + ": predicted " + std::string(probe::to_string(v.verdict)) +
                      ", load " + (got.is_number_integer() && got.get<int>() >= 0 ? result_name(got.get<int>())
                                                                                 : "not run" + (err.is_string() ? " (" + err.get<std::string>() + ")" : std::string())) +
                      (agree ? (*agree ? "" : " MISMATCH") : " (not compared)");
            }
            if (o.format == "text")
              std::cout << "    image " << i << " at " << hex(images[i].offset) << " on " << gpu_text(host.gpus[g]) << ": "
                        << (!all_agree ? "DISAGREE" : any_compared ? "agree" : "not compared") << "\n      " << esc(line) << "\n";
            jimages.push_back({{"image", i}, {"offset", images[i].offset}, {"gpu", arch::Arch{host.gpus[g].sm}.sm_name()},
                               {"device", dev}, {"passes", jp}});
          }
        }
        jlibs.push_back({{"member", member}, {"images", jimages}});
      }
      if (jlibs.empty() && o.format == "text")
        std::cout << "  no device code (no cubin, PTX or LTO-IR outside relocatable objects): nothing to load\n";
      inputs.push_back({{"path", m.path}, {"libraries", jlibs}});
    }
  }
  // Nothing compared proves nothing: not a pass.
  int rc = !unreadable.empty() ? kExitUnreadable : compared > 0 && compared == agreed ? kExitOk : kExitFindings;
  if (o.format == "json") {
    json jg = json::array();
    for (const auto& g : host.gpus) jg.push_back(gpu_json(g));
    json doc{{"schema", 1},      {"tool", "cuwheel " CUWHEEL_VERSION}, {"command", "probe --load"},
             {"driver", driver_json(driver)}, {"gpus", jg},       {"inputs", inputs},
             {"compared", compared}, {"agreed", agreed},          {"not_compared", not_compared},
             {"unreadable", unreadable}, {"exit", rc},            {"host", host_json(host)}};
    std::cout << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    std::cout << "loads compared with the prediction: " << agreed << " of " << compared << " agree";
    if (not_compared) std::cout << "; " << not_compared << " not compared (unknown, LTO-IR only, or not loaded)";
    std::cout << "\n";
  }
  return rc;
}

}  // namespace

void setup_probe(CLI::App* cmd) {
  auto& o = g_opts;
  cmd->add_option("paths", o.paths, "Wheels, libraries, fatbins, cubins, folders or installed environments (none: this machine)");
  cmd->add_option("--gpu", o.gpus,
                  "GPU to answer for: sm_XY, a compute capability (8.6), a product name (\"H100\", \"RTX 5090\"), "
                  "'this' (this machine's GPUs, the default when a driver answers) or 'all-known' (every compute "
                  "capability of the product table); repeatable")
      ->allow_extra_args(false);
  cmd->add_option("--driver", o.driver,
                  "The driver to judge PTX against: a Linux driver version (580.65) or the CUDA version it supports "
                  "(13.0); default: this machine's driver with --gpu this, else any driver");
  cmd->add_option("--format", o.format, "Output format")->check(CLI::IsMember({"text", "json"}));
  cmd->add_flag("--load", o.load,
                "On a machine with a GPU: hand every image to the driver (cuModuleLoadDataEx), also with "
                "CUDA_FORCE_PTX_JIT=1 and with the JIT cache off, and compare its results with the prediction");
  cmd->add_option("--load-pass", o.load_pass, "internal: one pass of --load")->group("");
}

int run_probe() {
  const auto& o = g_opts;
  if (!o.load_pass.empty()) return run_load_pass(o);
  if (o.load && o.paths.empty()) {
    print_error("--load", "give the wheels or libraries to load");
    return kExitUnreadable;
  }
  if (o.load && !o.gpus.empty()) {
    print_error("--load", "loads run on this machine's GPUs; --gpu does not apply");
    return kExitUnreadable;
  }
  if (o.load && !o.driver.empty()) {
    print_error("--load", "loads run on this machine's driver; --driver does not apply");
    return kExitUnreadable;
  }
  // --driver.
  std::optional<probe::DriverLimit> driver;
  if (!o.driver.empty()) {
    auto d = probe::parse_driver(o.driver);
    if (!d) {
      print_error("probe", d.error().message());
      return kExitUnreadable;
    }
    driver = *d;
  }
  // This machine: asked about when no path is given, for --gpu this, and
  // when no --gpu is given (its GPUs are the default).
  bool want_this = o.paths.empty() || o.gpus.empty() ||
                   std::any_of(o.gpus.begin(), o.gpus.end(), [](const std::string& g) {
                     return g.size() == 4 && (g[0] | 0x20) == 't' && (g[1] | 0x20) == 'h' && (g[2] | 0x20) == 'i' &&
                            (g[3] | 0x20) == 's';
                   });
  std::optional<probe::HostReport> host;
  if (want_this) {
    probe::HostOptions ho;
    if (const char* p = std::getenv("LD_LIBRARY_PATH")) ho.ld_library_path = p;
    host = probe::probe_host(ho);
  }
  if (o.paths.empty()) {
    if (!o.gpus.empty() || !o.driver.empty()) {
      print_error("probe", "--gpu and --driver judge wheels or libraries: give their paths");
      return kExitUnreadable;
    }
    if (o.format == "json") {
      json doc{{"schema", 1},
               {"tool", "cuwheel " CUWHEEL_VERSION},
               {"command", "probe"},
               {"host", host_json(*host)},
               {"exit", host->state == probe::HostState::ok ? kExitOk : kExitFindings}};
      std::cout << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    } else {
      print_host_text(*host);
    }
    return host->state == probe::HostState::ok ? kExitOk : kExitFindings;
  }

  if (o.load) return run_load(o, *host, host->driver);  // the driver that loads is the one to predict for

  // The GPUs.
  std::vector<probe::Gpu> gpus;
  std::set<std::string> seen;
  auto add = [&](const probe::Gpu& g) {
    // One row per compute capability: the first name given for it labels it.
    if (seen.insert(arch::Arch{g.sm}.sm_name()).second) gpus.push_back(g);
  };
  bool used_host = false;
  for (const auto& given : o.gpus) {
    std::string text = given;
    std::string lower;
    for (char c : text) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower == "this" || lower == "all-known") text = lower;
    if (text == "this") {
      if (host->state != probe::HostState::ok || host->gpus.empty()) {
        print_error("--gpu this", host->summary);
        return kExitUnreadable;
      }
      for (const auto& g : host->gpus) add(g);
      used_host = true;
    } else if (text == "all-known") {
      for (const auto& g : probe::all_known_gpus()) add(g);
    } else {
      auto g = probe::parse_gpu(text);
      if (!g) {
        print_error("probe", g.error().message());
        return kExitUnreadable;
      }
      if (!g->known)
        print_warning("--gpu " + text, "compute capability " + cc_of(g->sm) +
                                          " is not in cuwheel's tables: every verdict on it is unknown");
      if (!g->matched.empty()) {
        auto others = cuda::gpu_products_extending(text);
        if (!others.empty()) {
          std::string list;
          for (size_t k = 0; k < others.size() && k < 4; ++k)
            list += (k ? ", " : "") + std::string(others[k].name) + " (" + cc_of(others[k].sm) + ")";
          print_note("--gpu " + text, "matched " + g->matched + " (" + cc_of(g->sm) + "); also named so: " + list +
                                          "; give the full name to choose one of those");
        }
      }
      add(*g);
    }
  }
  if (o.gpus.empty()) {
    if (host && host->state == probe::HostState::ok && !host->gpus.empty()) {
      for (const auto& g : host->gpus) add(g);
      used_host = true;
    } else {
      print_note("probe", "no GPU here (" + host->summary + "); answering for every known GPU (--gpu all-known)");
      for (const auto& g : probe::all_known_gpus()) add(g);
    }
  }
  if (used_host && !driver && host->driver) driver = host->driver;
  std::stable_sort(gpus.begin(), gpus.end(), [](const probe::Gpu& a, const probe::Gpu& b) { return a.sm < b.sm; });

  // The inputs.
  std::vector<InputResult> results;
  json unreadable = json::array();
  std::vector<Verdict> all;
  model::BuildOptions bo;
  bo.hash_members = false;
  bo.scan_python_loads = true;  // for plugin_evidence (bitsandbytes' f"libbitsandbytes_{...}")
  std::set<std::pair<dev_t, ino_t>> inodes;
  for (const auto& path : o.paths) {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && !inodes.insert({st.st_dev, st.st_ino}).second) {
      print_note(path, "given more than once; probed once");
      continue;
    }
    auto ms = model::build_models(path, bo);
    if (!ms) {
      print_error(path, ms.error().message());
      unreadable.push_back({{"where", path}, {"message", ms.error().message()}});
      continue;
    }
    std::vector<InputResult> here;
    std::vector<std::string> without;  // distributions or wheels of a folder with no device code
    for (const auto& m : *ms) {
      for (const auto& [where, msg] : m.read_errors) {
        print_error(where, msg);
        unreadable.push_back({{"where", where}, {"message", msg}});
      }
      if (m.unreadable) continue;
      // A single file that could not be read is unreadable, not "no device code".
      if (m.kind == model::CheckModel::Kind::library && !m.read_errors.empty()) continue;
      InputResult r = judge_model(m, gpus, driver);
      // In a folder or an environment, what carries no device code (the
      // core wheel beside its plugins, pip, setuptools) has nothing to be
      // judged on: it is named, not counted. Given alone, it is "unknown".
      if (ms->size() > 1 && r.libraries.empty() && m.read_errors.empty()) {
        without.push_back(!r.distribution.empty() ? r.distribution : m.path);
        continue;
      }
      here.push_back(std::move(r));
    }
    if (here.empty() && !without.empty()) {
      // Nothing in the folder has device code: one "unknown" for it.
      model::CheckModel empty;
      empty.path = path;
      here.push_back(judge_model(empty, gpus, driver));
      here.back().kind = ms->front().kind == model::CheckModel::Kind::installed ? "installed" : "directory";
    } else if (!without.empty()) {
      std::string list;
      for (size_t k = 0; k < without.size() && k < 8; ++k) list += (k ? ", " : "") + without[k];
      if (without.size() > 8) list += ", and " + std::to_string(without.size() - 8) + " more";
      print_note(path, std::to_string(without.size()) + (ms->front().kind == model::CheckModel::Kind::installed
                                                             ? " installed distribution"
                                                             : " input") +
                           (without.size() == 1 ? "" : "s") + " without device code, nothing to predict: " + list);
    }
    for (auto& r : here) results.push_back(std::move(r));
  }
  // Across the command line as within a folder: when some input has device
  // code, the inputs without any (the core wheel of `probe dist/*.whl`)
  // are named, not counted; alone, each is "unknown".
  json without_code = json::array();
  if (std::any_of(results.begin(), results.end(), [](const InputResult& r) { return !r.libraries.empty(); })) {
    std::vector<InputResult> kept;
    std::string list;
    size_t n = 0;
    for (auto& r : results) {
      if (!r.libraries.empty() || r.read_error) {
        kept.push_back(std::move(r));
        continue;
      }
      std::string name = r.path + (r.distribution.empty() ? "" : " (" + r.distribution + ")");
      without_code.push_back(name);
      if (n < 8) list += (n ? ", " : "") + name;
      ++n;
    }
    if (n > 8) list += ", and " + std::to_string(n - 8) + " more";
    if (n) print_note("probe", std::to_string(n) + " input" + (n == 1 ? "" : "s") +
                                   " without device code, nothing to predict: " + list);
    results = std::move(kept);
  }
  for (const auto& r : results) all.insert(all.end(), r.verdicts.begin(), r.verdicts.end());
  int rc = unreadable.empty() ? probe::exit_status(all) : kExitUnreadable;

  if (o.format == "json") {
    json jg = json::array();
    for (const auto& g : gpus) jg.push_back(gpu_json(g));
    json inputs = json::array();
    for (const auto& r : results) inputs.push_back(input_json(r, gpus));
    json doc{{"schema", 1},
             {"tool", "cuwheel " CUWHEEL_VERSION},
             {"command", "probe"},
             {"driver", driver_json(driver)},
             {"gpus", jg},
             {"inputs", inputs},
             {"without_device_code", without_code},
             {"unreadable", unreadable},
             {"exit", rc}};
    if (used_host) doc["host"] = host_json(*host);
    std::cout << doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
    return rc;
  }
  std::cout << "driver: "
            << (driver ? esc(driver->given) + ": JIT-compiles PTX up to ISA " + driver->max_isa.to_string() +
                             (driver->open_ended ? " or newer" : "") + " (CUDA " + driver->cuda.to_string() + ")"
                       : std::string("any (--driver not given): a JIT answer names the driver it needs"))
            << "\n";
  for (const auto& r : results) print_input_text(r, gpus);
  return rc;
}

}  // namespace cuwheel::cli
