// no-device-code: a wheel that says it is a CUDA build must carry device
// code (SASS, PTX or LTO-IR) in at least one of its libraries. It says so
// by its name (`-cu12`, `-cu13`, `cuda12`, `cuda13x` as a name part), a
// local version label (`+cu130`), unconditional Requires-Dist on NVIDIA
// runtime packages (nvidia-* or cuda-toolkit), a library NEEDing
// libcudart, or the policy (cuda-major, sass, ptx, gpus). This is the rule
// that fires when the other device-code rules have nothing to inspect, so a
// check of a CPU-only build never passes silently.
//
// Not flagged: NVIDIA's own CUDA component distributions and wheels that
// ship a CUDA toolkit library (libcudart, libnvrtc, libnvJitLink...): they
// are host-side parts of CUDA by design (bundled-cuda-library judges the
// latter).
#include <cctype>
#include <set>

#include "cuwheel/cuda/libclass.h"
#include "cuwheel/wheel/pep508.h"
#include "device_arch.h"
#include "loading_util.h"
#include "rules.h"

namespace cuwheel::check::rule_impl {

namespace {

// "cu12", "cu130", "cuda12", "cuda13x": a name or label part naming CUDA.
bool is_cuda_token(std::string_view t) {
  if (t.substr(0, 4) == "cuda") t.remove_prefix(4);
  else if (t.substr(0, 2) == "cu") t.remove_prefix(2);
  else return false;
  if (!t.empty() && t.back() == 'x') t.remove_suffix(1);
  if (t.size() < 2 || t.size() > 3) return false;
  for (char c : t)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

// Splits on '-', '_' and '.', lower-cased.
std::vector<std::string> tokens(std::string_view s) {
  std::vector<std::string> out(1);
  for (char c : s) {
    if (c == '-' || c == '_' || c == '.') {
      if (!out.back().empty()) out.emplace_back();
    } else {
      out.back() += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  if (out.back().empty()) out.pop_back();
  return out;
}

bool is_nvidia_runtime_requirement(const std::string& norm) {
  if (norm == "cuda-toolkit") return true;
  // nvidia-ml-py is the NVML binding (driver side), not a CUDA runtime.
  return norm.rfind("nvidia-", 0) == 0 && norm != "nvidia-ml-py";
}

// A binding: a library of the wheel NEEDs a CUDA library other than the
// runtime (it calls NVIDIA's kernels: cuBLAS, cuFFT, NCCL...), or a library
// a declared dependency ships (pylibraft-cu12 binds libraft.so of
// libraft-cu12; a torch extension NEEDs libtorch.so). Such a wheel carries
// no kernels of its own by design.
bool is_binding(const Context& ctx) {
  const CheckModel& m = ctx.model;
  const auto deps = loading::declared_distributions(m);
  for (const auto& lib : m.libraries)
    for (const auto& n : lib.load.needed) {
      auto c = classify_soname(n);
      if (c.kind == LibraryKind::cuda_toolkit && n.rfind("libcudart.so", 0) != 0) return true;
      for (const model::Provider* p : ctx.providers.find(n))
        if (p->ships && deps.count(p->distribution)) return true;
    }
  return false;
}

}  // namespace

void no_device_code(const Context& ctx, Emitter& out) {
  const CheckModel& m = ctx.model;
  bool has_elf = false;
  for (const auto& lib : m.libraries) {
    if (lib.summary.entries > 0) return;  // device code found
    if (!lib.error.empty()) return;       // unreadable: cannot say it has none
    has_elf = has_elf || lib.is_elf;
    if (classify_soname(base_name(lib.member.empty() ? m.path : lib.member)).kind == LibraryKind::cuda_toolkit ||
        (lib.load.soname && classify_soname(*lib.load.soname).kind == LibraryKind::cuda_toolkit))
      return;  // the wheel ships a CUDA toolkit library: a host part of CUDA
  }

  std::string name = m.metadata ? m.metadata->name : m.parsed_filename ? m.parsed_filename->distribution : "";
  std::string version = m.metadata ? m.metadata->version : m.parsed_filename ? m.parsed_filename->version : "";
  if (!name.empty() && lookup_distribution(name)) return;  // NVIDIA's own component wheels
  if (is_binding(ctx)) return;

  std::vector<std::string> claims;
  for (const auto& t : tokens(name))
    if (is_cuda_token(t)) {
      claims.push_back("its name \"" + name + "\"");
      break;
    }
  if (size_t plus = version.find('+'); plus != std::string::npos)
    for (const auto& t : tokens(version.substr(plus + 1)))
      if (is_cuda_token(t)) {
        claims.push_back("its version label \"+" + version.substr(plus + 1) + "\"");
        break;
      }
  if (m.metadata)
    for (const auto& rd : m.metadata->requires_dist) {
      auto r = Requirement::parse(rd);
      if (!r || !r->behind_extras().empty()) continue;  // optional extras do not make it a CUDA build
      if (is_nvidia_runtime_requirement(r->normalized_name())) {
        claims.push_back("Requires-Dist " + r->name);
        break;
      }
    }
  for (const auto& lib : m.libraries)
    if (lib.load.runtime.kind == CudaRuntime::Kind::shared) {
      claims.push_back(device::label(ctx, lib) + " NEEDing " + lib.load.runtime.soname);
      break;
    }
  const Policy& p = ctx.policy;
  if (p.cuda_major) claims.push_back("the policy's cuda-major " + std::to_string(*p.cuda_major));
  if (!p.sass.empty()) claims.push_back("the policy's sass list");
  if (p.ptx_mode == Policy::PtxMode::newest || (p.ptx_mode == Policy::PtxMode::list && !p.ptx.empty()))
    claims.push_back("the policy's ptx requirement");
  if (!p.gpus.empty()) claims.push_back("the policy's gpus");
  if (claims.empty()) return;

  std::string what = m.kind == CheckModel::Kind::wheel       ? "the wheel"
                     : m.kind == CheckModel::Kind::installed ? "the installed distribution"
                     : m.kind == CheckModel::Kind::library   ? "the file"
                                                             : "the directory";
  std::string msg = what + " claims CUDA (" + device::join(claims) + ") but " +
                    (m.libraries.empty() ? std::string("has no ELF library") : has_elf ? "none of its libraries carries device code"
                                                                                       : "carries no device code") +
                    " (no SASS, PTX or LTO-IR)";
  out.emit("", "", msg,
           "build the extension with nvcc/CUDA enabled (check that the build found the toolkit and did not "
           "fall back to a CPU-only build), or drop the CUDA name, label and requirements");
}

}  // namespace cuwheel::check::rule_impl
