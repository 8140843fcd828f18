// Load facts and summaries. See include/cuwheel/model/facts.h.
#include "cuwheel/model/facts.h"

#include <algorithm>
#include <cstring>
#include <cctype>
#include <map>
#include <set>
#include <tuple>

namespace cuwheel {

namespace {

// "libcudart.so.13" -> 13, and the same for a grafted copy's name
// ("libcudart-53d54daa.so.12.6.68" -> 12, cuda/libclass.h
// grafted_original()); anything else -> 0.
int cudart_major(const std::string& soname) {
  static const char kPrefix[] = "libcudart.so.";
  if (soname.rfind(kPrefix, 0) != 0) {
    std::optional<std::string> original = grafted_original(soname);
    return original && original->rfind(kPrefix, 0) == 0 ? cudart_major(*original) : 0;
  }
  int v = 0;
  for (size_t i = sizeof kPrefix - 1; i < soname.size() && std::isdigit(static_cast<unsigned char>(soname[i])); ++i) {
    v = v * 10 + (soname[i] - '0');
    if (v > 1000) return 0;
  }
  return v;
}

// Searches `hay` for `needle` in 8 MiB steps, handing each finished step to
// `done`, so a large table never has to be resident all at once.
bool find_chunked(ByteView hay, std::string_view needle, const std::function<void(ByteView)>& done) {
  const size_t step = 8u << 20;
  for (size_t off = 0; off < hay.size(); off += step) {
    size_t len = std::min(hay.size() - off, step + needle.size() - 1);
    bool hit = memmem(hay.data() + off, len, needle.data(), needle.size()) != nullptr;
    if (done) done(hay.subspan(off, std::min(hay.size() - off, step)));
    if (hit) return true;
  }
  return false;
}

}  // namespace

Expected<LoadFacts> read_load_facts(ByteView data, WarningSink* warnings, const std::function<void(ByteView)>& done) {
  auto f = elf::File::parse(data, warnings);
  if (!f) return f.error();
  return read_load_facts(*f, warnings, done);
}

LoadFacts read_load_facts(const elf::File& file, WarningSink* warnings, const std::function<void(ByteView)>& done) {
  const elf::File* f = &file;
  LoadFacts lf;
  lf.is64 = f->is64();
  lf.type = f->type();
  lf.machine = f->machine();
  const auto& d = f->dynamic();
  lf.soname = d.soname;
  lf.needed = d.needed;
  if (d.rpath) lf.rpath = elf::split_path_list(*d.rpath);
  if (d.runpath) lf.runpath = elf::split_path_list(*d.runpath);
  auto vn = f->version_needs();
  if (vn) lf.version_needs = std::move(*vn);
  else if (warnings) warnings->warn(vn.error().message());

  // CUDA runtime.
  if (lf.soname && cudart_major(*lf.soname)) {
    lf.runtime.kind = CudaRuntime::Kind::is_runtime;
    lf.runtime.major = cudart_major(*lf.soname);
    lf.runtime.soname = *lf.soname;
    return lf;
  }
  for (const auto& n : lf.needed) {
    if (int m = cudart_major(n)) {
      lf.runtime.kind = CudaRuntime::Kind::shared;
      lf.runtime.major = m;
      lf.runtime.soname = n;
      return lf;
    }
  }
  // Static runtime: cudart's own marker symbols survive in .symtab. Their
  // names are searched in the string table in place ("\0libcudart_static_"),
  // which avoids materialising every symbol of a large library.
  static const char kSymMarker[] = "\0libcudart_static_";
  for (const auto& sec : f->sections()) {
    if (sec.type != elf::SHT_SYMTAB || sec.link >= f->sections().size()) continue;
    auto strtab = f->section_data(f->sections()[sec.link]);
    if (!strtab || strtab->empty()) continue;
    if (find_chunked(*strtab, std::string_view(kSymMarker, sizeof kSymMarker - 1), done)) {
      lf.runtime.kind = CudaRuntime::Kind::static_runtime;
      lf.runtime.evidence = "symbol libcudart_static_*";
      return lf;
    }
  }
  // ...and its error-name table survives stripping, in .rodata.
  if (const elf::Section* ro = f->find_section(".rodata")) {
    auto v = f->section_data(*ro);
    static const char kMarker[] = "cudaErrorCudartUnloading";
    if (v && !v->empty()) {
      if (find_chunked(*v, std::string_view(kMarker, sizeof kMarker - 1), done)) {
        lf.runtime.kind = CudaRuntime::Kind::static_runtime;
        lf.runtime.evidence = "cudart error-name table in .rodata";
      }
    }
  }
  return lf;
}

std::optional<CudaRelease> symbol_release(std::string_view symbol, std::string_view file) {
  auto c = classify_soname(file);
  if (c.kind != LibraryKind::cuda_toolkit) return std::nullopt;
  // The soname's major: the first number after ".so.".
  size_t so = file.find(".so.");
  if (so == std::string_view::npos) return std::nullopt;
  int soname_major = 0;
  size_t i = so + 4;
  for (; i < file.size() && std::isdigit(static_cast<unsigned char>(file[i])) && soname_major < 1000; ++i)
    soname_major = soname_major * 10 + (file[i] - '0');
  if (i == so + 4) return std::nullopt;
  // Trailing "_<major>_<minor>".
  auto trailing_number = [&symbol](size_t end, size_t& start) -> std::optional<int> {
    size_t b = end;
    while (b > 0 && std::isdigit(static_cast<unsigned char>(symbol[b - 1])) && end - b < 4) --b;
    if (b == end || b == 0 || symbol[b - 1] != '_') return std::nullopt;
    int v = 0;
    for (size_t k = b; k < end; ++k) v = v * 10 + (symbol[k] - '0');
    start = b - 1;
    return v;
  };
  size_t minor_start = 0, major_start = 0;
  auto minor = trailing_number(symbol.size(), minor_start);
  if (!minor) return std::nullopt;
  auto major = trailing_number(minor_start, major_start);
  if (!major || *major != soname_major || major_start == 0) return std::nullopt;
  return CudaRelease{*major, *minor};
}

std::vector<CudaSymbolNeed> cuda_symbol_needs(const std::vector<elf::Symbol>& dynsyms) {
  std::vector<CudaSymbolNeed> out;
  for (const auto& s : dynsyms) {
    if (s.defined() || s.name.empty() || s.version.empty() || s.version_file.empty()) continue;
    if (classify_soname(s.version_file).kind != LibraryKind::cuda_toolkit) continue;
    out.push_back({s.name, s.version, s.version_file, symbol_release(s.name, s.version_file)});
  }
  std::sort(out.begin(), out.end(), [](const CudaSymbolNeed& a, const CudaSymbolNeed& b) {
    return std::tie(a.file, a.symbol, a.version) < std::tie(b.file, b.symbol, b.version);
  });
  out.erase(std::unique(out.begin(), out.end(),
                        [](const CudaSymbolNeed& a, const CudaSymbolNeed& b) {
                          return a.file == b.file && a.symbol == b.symbol && a.version == b.version;
                        }),
            out.end());
  return out;
}

bool arch_less(const std::string& a, const std::string& b) {
  auto key = [](const std::string& s) {
    size_t u = s.find('_');
    // The number comes from a 32-bit header field (up to 10 digits); saturate
    // rather than overflow on anything longer.
    uint64_t n = 0;
    size_t i = u == std::string::npos ? 0 : u + 1;
    for (; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i)
      n = n > (UINT64_MAX - 9) / 10 ? UINT64_MAX : n * 10 + static_cast<uint64_t>(s[i] - '0');
    std::string suffix = s.substr(std::min(i, s.size()));
    int rank = suffix.empty() ? 0 : suffix == "a" ? 1 : suffix == "f" ? 2 : 3;
    return std::make_tuple(s.substr(0, u == std::string::npos ? 0 : u), n, rank, suffix);
  };
  return key(a) < key(b);
}

DeviceSummary summarize(const DeviceCode& dc) {
  DeviceSummary s;
  std::set<std::string> sass, ptx, lto, comp, kernels, ptx_kernels;
  std::set<uint64_t> kernel_hashes;
  std::map<std::string, std::string> isa;
  bool all_known = true;
  std::set<size_t> data_containers;
  for (const auto& e : dc.entries) {
    ++s.entries;
    if (e.origin == fatbin::Origin::data && data_containers.insert(e.container).second) {
      auto it = std::find_if(s.data_sections.begin(), s.data_sections.end(),
                             [&](const auto& p) { return p.first == e.section; });
      if (it == s.data_sections.end()) s.data_sections.emplace_back(e.section, 1);
      else ++it->second;
    }
    s.stored_bytes += e.stored_size;
    comp.insert(e.compression == fatbin::Compression::none ? "none"
                : e.compression == fatbin::Compression::lz4 ? "lz4"
                : e.compression == fatbin::Compression::zstd ? "zstd" : "legacy");
    if (e.kind == fatbin::kElf) {
      std::string a = e.cubin ? e.cubin->arch_name() : e.header_arch();
      if (e.arch_f && a.back() != 'a' && a.back() != 'f') a += "f";
      sass.insert(a);
      if (e.cubin && e.payload_error.empty()) {
        kernels.insert(e.cubin->kernels.begin(), e.cubin->kernels.end());
        kernel_hashes.insert(e.cubin->kernel_hashes.begin(), e.cubin->kernel_hashes.end());
      }
      if (!e.cubin || !e.payload_error.empty()) all_known = false;
    } else if (e.kind == fatbin::kPtx) {
      std::string a = e.virtual_arch();
      ptx.insert(a);
      std::string v = e.ptx_isa();
      auto& cur = isa[a];
      if (!v.empty() && (cur.empty() || arch_less("x_" + cur, "x_" + v))) cur = v;
      if (e.ptx) ptx_kernels.insert(e.ptx->entries.begin(), e.ptx->entries.end());
      else all_known = false;
    } else if (e.kind == fatbin::kLtoIr) {
      lto.insert("lto_" + std::to_string(e.sm) + (e.arch_a ? "a" : e.arch_f ? "f" : ""));
    }
  }
  auto sorted = [](const std::set<std::string>& in) {
    std::vector<std::string> v(in.begin(), in.end());
    std::sort(v.begin(), v.end(), arch_less);
    return v;
  };
  s.sass = sorted(sass);
  s.ptx = sorted(ptx);
  for (const auto& p : s.ptx) s.ptx_isa.push_back(isa[p]);
  s.ltoir = sorted(lto);
  s.compression.assign(comp.begin(), comp.end());
  s.kernels = !kernels.empty()         ? kernels.size()
              : !kernel_hashes.empty() ? kernel_hashes.size()
                                       : ptx_kernels.size();
  s.kernels_known = all_known;
  return s;
}

Expected<WheelSummary> read_wheel_summary(Wheel& w, WarningSink& warnings) {
  WheelSummary s;
  const std::string& path = w.path();
  size_t slash = path.rfind('/');
  s.filename = slash == std::string::npos ? path : path.substr(slash + 1);
  auto fn = WheelFilename::parse(s.filename);
  if (fn) {
    for (const auto& t : fn->tags()) s.filename_tags.push_back(t.to_string());
  } else {
    warnings.warn(fn.error().message());
  }
  std::vector<std::string> names;
  names.reserve(w.members().size());
  for (const auto& m : w.members()) names.push_back(m.name);
  auto loc = locate_dist_info(names, fn ? &*fn : nullptr, path);
  if (!loc) return loc.error();
  s.dist_info = loc->dir;
  auto read_member = [&](const std::string& name) -> Expected<Blob> {
    const ZipMember* m = w.find(loc->dir + "/" + name);
    if (!m) return Error(path + ": " + loc->dir + "/" + name + " is missing");
    auto b = w.read(*m);
    if (!b) return b.error();
    return b;
  };
  auto meta_blob = read_member("METADATA");
  if (!meta_blob) return meta_blob.error();
  auto meta = CoreMetadata::parse(meta_blob->view(), loc->dir + "/METADATA", warnings);
  if (!meta) return meta.error().context(path);
  s.name = meta->name;
  s.version = meta->version;
  s.metadata_version = meta->metadata_version;
  s.requires_python = meta->requires_python;
  s.requires_dist = meta->requires_dist;
  s.provides_extra = meta->provides_extra;
  auto wheel_blob = read_member("WHEEL");
  if (!wheel_blob) return wheel_blob.error();
  auto wi = WheelInfo::parse(wheel_blob->view(), loc->dir + "/WHEEL", warnings);
  if (!wi) return wi.error().context(path);
  s.wheel_tags = wi->tags;
  return s;
}

}  // namespace cuwheel
