// The static prediction of `cuwheel probe`. See include/cuwheel/probe/probe.h.
#include "cuwheel/probe/probe.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <map>
#include <set>

#include "cuwheel/cuda/compat.h"
#include "cuwheel/cuda/gpus.h"
#include "cuwheel/object/fatbin.h"

namespace cuwheel::probe {

namespace {

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::optional<unsigned> to_uint(std::string_view s) {
  if (!all_digits(s) || s.size() > 6) return std::nullopt;
  unsigned v = 0;
  std::from_chars(s.data(), s.data() + s.size(), v);
  return v;
}

std::optional<cuda::PtxIsa> parse_isa(std::string_view s) {
  size_t dot = s.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  auto a = to_uint(s.substr(0, dot)), b = to_uint(s.substr(dot + 1));
  if (!a || !b) return std::nullopt;
  return cuda::PtxIsa{static_cast<int>(*a), static_cast<int>(*b)};
}

size_t components(std::string_view v) { return static_cast<size_t>(std::count(v.begin(), v.end(), '.')) + 1; }

// `min` cut to the first `n` components.
std::string_view first_components(std::string_view min, size_t n) {
  size_t pos = 0;
  for (size_t i = 0; i < n; ++i) {
    pos = min.find('.', pos);
    if (pos == std::string_view::npos) return min;
    if (i + 1 < n) ++pos;
  }
  return min.substr(0, pos);
}

// Is driver `given` at least `min`, compared on the components given?
bool driver_at_least(std::string_view given, std::string_view min) {
  auto c = cuda::compare_driver_versions(given, first_components(min, components(given)));
  return c && *c >= 0;
}

unsigned first_number(std::string_view v) { return to_uint(v.substr(0, v.find('.'))).value_or(0); }

DriverLimit limit_of(const cuda::ReleaseInfo& row, std::string given) {
  DriverLimit d;
  d.given = std::move(given);
  d.cuda = row.release;
  d.max_isa = row.ptx_isa;
  return d;
}

// The preference of arch::predict among PTX for one GPU (compat.cc): the
// exact compute capability first ('a', then 'f', then plain), then the
// highest.
int rank(const arch::Arch& a, unsigned gpu) {
  int exact = a.sm == gpu ? 1000 : 0;
  int variant = a.variant == arch::Variant::kA ? 2 : a.variant == arch::Variant::kF ? 1 : 0;
  return exact + static_cast<int>(a.sm) * 3 + variant;
}

// Ascending by compute capability ("sm_75 sm_90 sm_100"), duplicates once.
std::string join_names(std::vector<arch::Arch> v, bool ptx) {
  std::sort(v.begin(), v.end(), [](const arch::Arch& a, const arch::Arch& b) {
    return a.sm != b.sm ? a.sm < b.sm : static_cast<int>(a.variant) < static_cast<int>(b.variant);
  });
  std::string out, last;
  for (const auto& a : v) {
    std::string n = ptx ? a.compute_name() : a.sm_name();
    if (n == last) continue;
    out += (out.empty() ? "" : " ") + n;
    last = n;
  }
  return out;
}

std::string cc_text(unsigned sm) { return std::to_string(sm / 10) + "." + std::to_string(sm % 10); }

void set_needs(ImageVerdict& v, const cuda::PtxIsa& isa) {
  if (auto r = cuda::release_for_ptx(isa)) v.needs_cuda = r->to_string();
  v.needs_driver = std::string(cuda::min_driver_for_ptx(isa));
}

std::string driver_needs_text(const ImageVerdict& v) {
  std::string out = "PTX ISA " + v.ptx_isa;
  if (!v.needs_cuda.empty()) out += ", a driver for CUDA " + v.needs_cuda;
  if (!v.needs_driver.empty()) out += " (>= " + v.needs_driver + ")";
  return out;
}

}  // namespace

std::string_view to_string(Verdict v) {
  switch (v) {
    case Verdict::native: return "native";
    case Verdict::jit: return "jit";
    case Verdict::unknown: return "unknown";
    case Verdict::partial: return "partial";
    case Verdict::ptx_unsupported: return "ptx-unsupported";
    case Verdict::no_image: return "no-image";
    case Verdict::driver_too_old: return "driver-too-old";
  }
  return "";
}

Verdict weakest(Verdict a, Verdict b) { return static_cast<uint8_t>(a) >= static_cast<uint8_t>(b) ? a : b; }

int cuda_error(Verdict v) {
  return v == Verdict::no_image ? 209 : v == Verdict::ptx_unsupported ? 222 : v == Verdict::driver_too_old ? 35 : 0;
}

Expected<DriverLimit> parse_driver(std::string_view text) {
  const std::string given(text);
  std::string_view head = text.substr(0, text.find('.'));
  bool cuda_form = text.starts_with("cu") || (all_digits(head) && head.size() <= 2);
  if (cuda_form) {
    auto r = cuda::parse_release(text);
    if (!r) return r.error().context("--driver " + given);
    const cuda::ReleaseInfo* row = cuda::find_release(*r);
    if (!row) return Error{"--driver " + given + ": CUDA " + r->to_string() + " is not in the release table"};
    return limit_of(*row, given);
  }
  if (!cuda::compare_driver_versions(text, text))
    return Error{"--driver '" + given +
                 "': not a driver version (580.65.06, 535) or a CUDA version (13.0, 12.8) as nvidia-smi shows them"};
  const cuda::ReleaseInfo* chosen = nullptr;
  const cuda::ReleaseInfo* newest_known = nullptr;
  for (const auto& row : cuda::release_table()) {
    if (row.min_driver.empty() || !row.published) continue;
    newest_known = &row;
    if (driver_at_least(text, row.min_driver)) chosen = &row;
  }
  if (!chosen) {
    std::string oldest;
    for (const auto& row : cuda::release_table())
      if (!row.min_driver.empty()) {
        oldest = std::string(row.min_driver) + " for CUDA " + row.release.to_string();
        break;
      }
    return Error{"--driver " + given + ": older than the oldest driver in the release table (" + oldest +
                 "); give the CUDA version it supports instead (nvidia-smi's \"CUDA Version\")"};
  }
  DriverLimit d = limit_of(*chosen, given);
  d.open_ended = chosen == newest_known && first_number(text) > first_number(newest_known->min_driver);
  return d;
}

Expected<DriverLimit> driver_from_api_version(int version) {
  if (version <= 0) return Error{"cuDriverGetVersion answered " + std::to_string(version) + ": no CUDA version"};
  cuda::Release r{static_cast<unsigned>(version / 1000), static_cast<unsigned>((version % 1000) / 10)};
  const std::string given = r.to_string() + " (cuDriverGetVersion " + std::to_string(version) + ")";
  if (const cuda::ReleaseInfo* row = cuda::find_release(r); row && row->published) return limit_of(*row, given);
  auto table = cuda::release_table();
  if (!table.empty() && r > table.back().release) {
    DriverLimit d = limit_of(table.back(), given);
    d.open_ended = true;
    return d;
  }
  return Error{"cuDriverGetVersion answered " + std::to_string(version) + " (CUDA " + r.to_string() +
               "), a release the table does not hold"};
}

Expected<Gpu> parse_gpu(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  Gpu g;
  g.label = std::string(text);
  std::optional<unsigned> sm;
  if (text.starts_with("sm_") || text.starts_with("SM_")) {
    std::string_view n = text.substr(3);
    if (!n.empty() && (n.back() == 'a' || n.back() == 'f'))
      return Error{"--gpu " + g.label + ": a GPU has a compute capability, not a feature-set variant; give sm_" +
                   std::string(n.substr(0, n.size() - 1))};
    sm = to_uint(n);
    if (!sm || *sm < 10) return Error{"--gpu " + g.label + ": not an SM number (sm_90, sm_120)"};
  } else if (size_t dot = text.find('.'); dot != std::string_view::npos && all_digits(text.substr(0, dot)) &&
                                          all_digits(text.substr(dot + 1))) {
    auto maj = to_uint(text.substr(0, dot)), min = to_uint(text.substr(dot + 1));
    if (!maj || !min || *min > 9 || *maj == 0)
      return Error{"--gpu " + g.label + ": not a compute capability (9.0, 12.1)"};
    sm = *maj * 10 + *min;
  } else if (all_digits(text)) {
    sm = to_uint(text);
    if (!sm || *sm < 10) return Error{"--gpu " + g.label + ": not an SM number (90, 120)"};
    // Four digits and more are product numbers ("4090"), not SM numbers.
    if (text.size() > 3)
      return Error{"--gpu " + g.label + ": not an SM number (90, 120); for a product give its name (\"RTX " +
                   g.label + "\")"};
  } else if (size_t dot = text.find('.'); dot != std::string_view::npos && dot + 2 == text.size() - 1 &&
                                          (text.back() == 'a' || text.back() == 'f')) {
    return Error{"--gpu " + g.label + ": a GPU has a compute capability, not a feature-set variant; give " +
                 std::string(text.substr(0, text.size() - 1))};
  } else {
    auto p = cuda::find_gpu_product(text);
    if (!p) return p.error().context("--gpu");
    g.sm = p->sm;
    g.matched = std::string(p->name);
    g.known = arch::is_known_cc(g.sm);
    return g;
  }
  g.sm = *sm;
  g.label = arch::Arch{g.sm}.sm_name();
  g.known = arch::is_known_cc(g.sm);
  return g;
}

std::vector<Gpu> all_known_gpus() {
  std::map<unsigned, std::vector<std::string_view>> by_sm;
  for (const auto& p : cuda::gpu_products()) by_sm[p.sm].push_back(p.name);
  std::vector<Gpu> out;
  for (const auto& [sm, names] : by_sm) {
    Gpu g;
    g.sm = sm;
    g.known = arch::is_known_cc(sm);
    // As many names as fit in 40 characters (at least one), so that the
    // table stays readable on a terminal.
    size_t i = 0;
    for (; i < names.size() && i < 3; ++i) {
      if (i && g.label.size() + 2 + names[i].size() > 40) break;
      g.label += (i ? ", " : "") + std::string(names[i]);
    }
    if (i < names.size()) g.label += ", ...";
    out.push_back(std::move(g));
  }
  return out;
}

std::vector<Image> images_of(const DeviceCode& code) {
  std::vector<Image> out;
  std::map<size_t, size_t> index;  // container -> position in out
  std::set<size_t> kernels_unknown;  // containers with a cubin not decoded
  for (const auto& e : code.entries) {
    if (e.origin == fatbin::Origin::relocatable) continue;
    if (e.kind != fatbin::kElf && e.kind != fatbin::kPtx && e.kind != fatbin::kLtoIr) continue;
    auto [it, fresh] = index.emplace(e.container, out.size());
    if (fresh) {
      out.emplace_back();
      out.back().container = e.container;
      out.back().offset = e.offset;
    }
    Image& img = out[it->second];
    if (e.kind == fatbin::kElf) {
      if (e.cubin && e.payload_error.empty()) {
        if (img.kernels) img.kernels = std::max(*img.kernels, e.cubin->kernel_count);
        else if (img.sass.empty()) img.kernels = e.cubin->kernel_count;
      } else {
        img.kernels.reset();
        kernels_unknown.insert(e.container);
      }
      std::string a = e.cubin ? e.cubin->arch_name() : e.header_arch();
      if (e.arch_f && a.back() != 'a' && a.back() != 'f') a += "f";
      if (auto arch = arch::Arch::parse(a)) img.sass.push_back(*arch);
    } else if (e.kind == fatbin::kPtx) {
      if (auto arch = arch::Arch::parse(e.virtual_arch())) img.ptx.push_back({*arch, e.ptx_isa()});
    } else {
      ++img.ltoir;
    }
  }
  for (auto& img : out)
    if (kernels_unknown.count(img.container)) img.kernels.reset();
  // nvcc's device-link image: cubins only, none with a kernel.
  std::erase_if(out, [](const Image& img) {
    return img.ptx.empty() && img.ltoir == 0 && !img.sass.empty() && img.kernels && *img.kernels == 0;
  });
  return out;
}

ImageVerdict judge_image(const Image& image, const Gpu& gpu, const std::optional<DriverLimit>& driver) {
  ImageVerdict v;
  const std::string name = arch::Arch{gpu.sm}.sm_name();
  if (image.sass.empty() && image.ptx.empty()) {
    v.verdict = Verdict::no_image;
    v.reason = image.ltoir ? "LTO-IR only: linked by nvJitLink at run time; the driver cannot load it as it is"
                           : "no cubin and no PTX";
    return v;
  }
  std::vector<arch::Arch> ptx_arches;
  for (const auto& p : image.ptx) ptx_arches.push_back(p.arch);
  const arch::Prediction p = arch::predict(image.sass, ptx_arches, gpu.sm);
  if (!gpu.known) {
    v.verdict = Verdict::unknown;
    v.reason = "compute capability " + cc_text(gpu.sm) + " is not in cuwheel's tables";
    if (p.by == arch::RunsBy::native) v.reason += "; by the rules the " + p.code->sm_name() + " cubin would run";
    else if (p.by == arch::RunsBy::jit) v.reason += "; by the rules " + p.code->compute_name() + " PTX would JIT-compile";
    else v.reason += "; by the rules nothing here would run";
    return v;
  }
  if (p.by == arch::RunsBy::native) {
    v.verdict = Verdict::native;
    v.code = p.code;
    v.reason = p.code->sm_name() + " cubin";
    return v;
  }
  std::vector<const Image::Ptx*> candidates;
  for (const auto& x : image.ptx)
    if (arch::ptx_runs_on(x.arch, gpu.sm)) candidates.push_back(&x);
  std::stable_sort(candidates.begin(), candidates.end(), [&](const Image::Ptx* a, const Image::Ptx* b) {
    return rank(a->arch, gpu.sm) > rank(b->arch, gpu.sm);
  });
  if (candidates.empty()) {
    v.verdict = Verdict::no_image;
    // Cubins that would run by major and minor but are the other side of
    // the Tegra/desktop line: say so, as "no cubin" alone reads as a bug.
    std::vector<arch::Arch> other_side;
    for (const auto& a : image.sass)
      if (a.variant == arch::Variant::kBase && a.major() == gpu.sm / 10 && a.minor() <= gpu.sm % 10 &&
          arch::is_tegra(a.sm) != arch::is_tegra(gpu.sm))
        other_side.push_back(a);
    std::string side;
    if (!other_side.empty())
      side = "; " + join_names(other_side, false) + (arch::is_tegra(gpu.sm) ? " (desktop)" : " (Tegra)") +
             (other_side.size() > 1 ? " do" : " does") + " not run on " +
             (arch::is_tegra(gpu.sm) ? "Tegra " : "desktop ") + cc_text(gpu.sm);
    v.reason = "no cubin for " + cc_text(gpu.sm) +
               (image.sass.empty() ? std::string() : " (cubins: " + join_names(image.sass, false) + side + ")") +
               (ptx_arches.empty() ? std::string(" and no PTX")
                                   : " and no PTX that JIT-compiles for it (PTX: " + join_names(ptx_arches, true) + ")");
    return v;
  }
  // The driver takes the best PTX by architecture alone and does not fall
  // back to a lower one when it refuses that one's ISA: an image with
  // compute_80 (ISA 9.0) and compute_90 (ISA 9.1) fails with 222 on a 9.0
  // GPU and a CUDA 13.0 driver (docs/probe.md, the H200 matrix, m16).
  const Image::Ptx* c = candidates.front();
  ImageVerdict cv;
  cv.code = c->arch;
  cv.ptx_isa = c->isa;
  auto isa = parse_isa(c->isa);
  if (!isa || !cuda::release_for_ptx(*isa)) {
    cv.verdict = Verdict::unknown;
    cv.reason = c->arch.compute_name() + " PTX of ISA " + (c->isa.empty() ? "(unread)" : c->isa) +
                ", a PTX ISA cuwheel's release table does not hold";
    return cv;
  }
  set_needs(cv, *isa);
  if (!driver || *isa <= driver->max_isa) {
    cv.verdict = Verdict::jit;
    cv.reason = c->arch.compute_name() + " PTX, JIT-compiled at first load; needs " + driver_needs_text(cv);
    return cv;
  }
  if (driver->open_ended) {
    cv.verdict = Verdict::unknown;
    cv.reason = c->arch.compute_name() + " PTX of ISA " + c->isa + ": driver " + driver->given +
                " is newer than the release table's drivers, which know ISA up to " + driver->max_isa.to_string();
    return cv;
  }
  cv.verdict = Verdict::ptx_unsupported;
  cv.reason = c->arch.compute_name() + " PTX needs " + driver_needs_text(cv) + "; driver " + driver->given +
              " supports CUDA " + driver->cuda.to_string() + " (PTX ISA " + driver->max_isa.to_string() + ")";
  if (candidates.size() > 1)
    cv.reason += "; the driver does not fall back to the lower PTX (" + candidates[1]->arch.compute_name() + ")";
  return cv;
}

LibraryVerdict judge_library(const std::vector<Image>& images, const Gpu& gpu,
                             const std::optional<DriverLimit>& driver) {
  LibraryVerdict lv;
  lv.images = images.size();
  bool first = true;
  for (const auto& img : images) {
    ImageVerdict v = judge_image(img, gpu, driver);
    ++lv.count[static_cast<size_t>(v.verdict)];
    if (first || v.verdict > lv.worst.verdict) lv.worst = v;
    if (first || v.verdict < lv.best.verdict) lv.best = v;
    first = false;
  }
  size_t fails = lv.count[static_cast<size_t>(Verdict::ptx_unsupported)] + lv.count[static_cast<size_t>(Verdict::no_image)];
  if (fails == 0 || fails == lv.images) lv.verdict = lv.worst.verdict;
  else lv.verdict = Verdict::partial;
  return lv;
}

std::optional<RuntimeNeed> runtime_need(const CudaRuntime& runtime, const std::vector<Image>& images) {
  using K = CudaRuntime::Kind;
  if ((runtime.kind == K::shared || runtime.kind == K::is_runtime) && runtime.major > 0)
    return RuntimeNeed{runtime.major, false, runtime.soname + (runtime.kind == K::shared ? " (DT_NEEDED)" : " (itself)")};
  if (runtime.kind != K::static_runtime) return std::nullopt;
  std::optional<cuda::PtxIsa> newest;
  for (const auto& img : images)
    for (const auto& p : img.ptx) {
      int major = 0, minor = 0;
      if (std::sscanf(p.isa.c_str(), "%d.%d", &major, &minor) != 2) continue;
      cuda::PtxIsa isa{major, minor};
      if (!newest || isa > *newest) newest = isa;
    }
  if (!newest) return std::nullopt;
  auto release = cuda::release_for_ptx(*newest);
  if (!release) return std::nullopt;
  return RuntimeNeed{static_cast<int>(release->major), true,
                     "static, presumably CUDA " + std::to_string(release->major) + " (its newest PTX, ISA " +
                         newest->to_string() + ", is CUDA " + release->to_string() + "'s)"};
}

bool apply_runtime_need(LibraryVerdict& lv, const RuntimeNeed& need, const DriverLimit& driver) {
  if (need.major <= 0 || driver.cuda.major >= static_cast<unsigned>(need.major)) return false;
  const cuda::ReleaseInfo* first = cuda::find_release(cuda::Release{static_cast<unsigned>(need.major), 0});
  std::string min = first && !first->min_driver.empty() ? " (driver " + std::string(first->min_driver) + " or newer)" : "";
  ImageVerdict v;
  v.verdict = Verdict::driver_too_old;
  v.needs_cuda = std::to_string(need.major) + ".0";
  if (first) v.needs_driver = std::string(first->min_driver);
  v.reason = "its CUDA runtime, " + need.evidence + ", needs a driver for CUDA " + v.needs_cuda + " or newer" + min +
             "; this driver supports CUDA " + driver.cuda.to_string() +
             ": the first CUDA call fails with cudaErrorInsufficientDriver (35), before any kernel";
  lv.verdict = Verdict::driver_too_old;
  lv.count = {};
  lv.count[static_cast<size_t>(Verdict::driver_too_old)] = lv.images;
  lv.worst = v;
  lv.best = v;
  return true;
}

int exit_status(const std::vector<Verdict>& verdicts) {
  int rc = 0;
  for (Verdict v : verdicts) {
    if (v == Verdict::ptx_unsupported || v == Verdict::no_image || v == Verdict::driver_too_old) return 2;
    if (v != Verdict::native) rc = 1;
  }
  return rc;
}

}  // namespace cuwheel::probe
