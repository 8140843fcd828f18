// cuobjdump listing emulation. See include/cuwheel/render/cuobjdump.h and
// docs/cuobjdump-behaviour.md for the observations behind each rule.
#include "cuwheel/render/cuobjdump.h"

#include <optional>

#include <algorithm>
#include <cstdio>

namespace cuwheel::cuobjdump {

std::string base_of(const std::string& file_name) {
  size_t dot = file_name.rfind('.');
  if (dot == std::string::npos) return file_name;
  return file_name.substr(0, dot);
}

std::string listing_base(const std::string& name, bool first_word_only) {
  std::string out;
  size_t i = 0;
  while (i < name.size()) {
    size_t j = name.find(' ', i);
    if (j == std::string::npos) j = name.size();
    if (j > i) {
      if (!out.empty()) out += "-";
      out += base_of(name.substr(i, j - i));
      if (first_word_only) break;
    }
    i = j + 1;
  }
  return out;
}

namespace {

std::string last_component(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// "ELF file    1: " — the counter is printed as %4d after one space.
std::string line(const char* what, int n, const std::string& name) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%s file %4d: ", what, n);
  return buf + name + "\n";
}

// The name cuobjdump gives an entry: "<base>.<k>.<arch>.<ext>", or
// "<identifier stem>.<arch>.<ext>" when the entry carries an identifier
// (the ordinal is still consumed), or "<base>.<arch>.cubin" for a raw cubin.
std::string entry_name(const EntryFacts& e, const std::string& base, int ordinal, bool raw_cubin) {
  std::string arch, ext;
  if (e.kind == fatbin::kElf) {
    // ELF entries are named after the cubin's own architecture ('f' is not
    // recorded there, so sm_100f lists as sm_100).
    arch = e.cubin ? e.cubin->arch_name() : "sm_" + std::to_string(e.sm) + (e.arch_a ? "a" : "");
    ext = "cubin";
  } else {
    arch = e.header_arch();
    ext = "ptx";
  }
  if (raw_cubin) return base + "." + arch + "." + ext;
  if (!e.identifier.empty()) return listing_base(last_component(e.identifier), false) + "." + arch + "." + ext;
  return base + "." + std::to_string(ordinal) + "." + arch + "." + ext;
}

// The entries of one object in the order cuobjdump lists them. In a host
// ELF file cuobjdump walks the fatbin sections by their section headers,
// whether or not a .nvFatBinSegment record points at a container: every
// container of `.nv_fatbin`, in file order, then every container of
// `__nv_relfatbin` (libcufft.so.12 of CUDA 13.0 has a `.nv_fatbin` and no
// wrapper at all and is listed; libnccl.so.2's wrappers point at its
// containers in another order, and `-all` lists them in section order).
// A container elsewhere is seen only through a wrapper (in wrapper order):
// the ~24,000 containers libcufft.so.12 keeps in `.ldata` are not listed;
// an ELF without section headers shows nothing.
std::vector<const EntryFacts*> listing_order(const DeviceCode& dc) {
  std::vector<const EntryFacts*> out;
  out.reserve(dc.entries.size());
  for (const auto& e : dc.entries)
    if (dc.kind != ObjectKind::host_elf || e.via_wrapper || e.origin == fatbin::Origin::executable ||
        e.origin == fatbin::Origin::relocatable)
      out.push_back(&e);
  if (dc.kind != ObjectKind::host_elf) return out;
  auto rank = [](const EntryFacts* e) {
    return e->origin == fatbin::Origin::executable ? 0 : e->origin == fatbin::Origin::relocatable ? 1 : 2;
  };
  std::stable_sort(out.begin(), out.end(), [&](const EntryFacts* a, const EntryFacts* b) {
    int ra = rank(a), rb = rank(b);
    if (ra != rb) return ra < rb;
    return ra < 2 && a->offset < b->offset;
  });
  return out;
}

// The fatal message with which cuobjdump 13.5 stops at an entry, or nullopt
// (measured on patched copies, docs/cuobjdump-behaviour.md section 7): an
// entry header architecture below 50 ("Support for 'sm_35' has been
// removed", naming the last toolkit that built it, or "(null)" for numbers
// no toolkit had; 0 is "Invalid gpu architecture"), and a cubin with an
// SHT_RELA section not linked to a symbol table ("Invalid ELF").
std::optional<std::string> refusal(const EntryFacts& e, const std::string& abs) {
  if (e.sm == 0) return std::string("cuobjdump fatal   : Invalid gpu architecture in fatbin\n");
  if (e.sm < 50) {
    const char* last = "(null)";
    switch (e.sm) {
      case 10: last = "6.0"; break;
      case 11: case 12: case 13: last = "6.5"; break;
      case 20: case 21: last = "9.1"; break;
      case 30: case 32: last = "10.2"; break;
      case 35: case 37: last = "11.8"; break;
      default: break;
    }
    return "cuobjdump fatal   : Support for 'sm_" + std::to_string(e.sm) + "' has been removed. Please use CUDA toolkit " +
           last + " or earlier.\n";
  }
  if (e.kind == fatbin::kElf && e.cubin && !e.cubin->rela_link_error.empty())
    return "cuobjdump fatal   : Invalid ELF in '" + abs + "'\n";
  return std::nullopt;
}

}  // namespace

Output render(const std::string& path, const std::string& cwd, FileKind kind, const std::vector<ObjectCode>& objects,
              const Mode& mode_in, const std::string& file_name) {
  Output o;
  const std::string abs = !path.empty() && path[0] == '/' ? path : cwd + "/" + path;
  Mode mode = mode_in;
  if (!mode.elf && !mode.ptx) mode.elf = mode.ptx = true;

  switch (kind) {
    case FileKind::unopenable:
      o.err = "cuobjdump fatal   : Could not open input file '" + abs + "'\n";
      o.status = 1;
      return o;
    case FileKind::too_small:
      o.err = "cuobjdump fatal   : Invalid fatbin header in '" + abs + "'\n";
      o.status = 1;
      return o;
    case FileKind::other:
      o.err = "cuobjdump info    : File '" + abs + "' does not contain device code\n";
      o.status = 255;
      return o;
    case FileKind::object:
    case FileKind::archive:
      break;
  }

  const bool is_archive = kind == FileKind::archive;
  const std::string name = file_name.empty() ? last_component(path) : last_component(file_name);
  int elf_n = 0, ptx_n = 0;
  bool any_code = false;
  bool named_once = false;
  for (const auto& obj : objects) {
    // cuobjdump stops reading an archive at its first member that is not
    // an object (no message, status unchanged).
    if (!obj.code) {
      if (is_archive) break;
      // A raw fatbin whose header lies is rejected up front; any other
      // unreadable object has no device code cuobjdump can see.
      if (obj.code.error().message().rfind("fatbin container", 0) == 0) {
        o.out.clear();
        o.err = "cuobjdump fatal   : Invalid fatbin header in '" + abs + "'\n";
        o.status = 1;
        return o;
      }
      continue;
    }
    const DeviceCode& dc = *obj.code;
    // The base name is cut from the file name once; cuobjdump tokenises
    // the name on spaces in place, so archive members after the first see
    // only its first word (observed: "x y z.a" gives x-y-z, then x).
    const std::string base = listing_base(name, named_once);
    named_once = true;
    if (is_archive) o.out += "\nmember " + abs + ":" + obj.member + ":\n";
    const bool raw_cubin = dc.kind == ObjectKind::cubin;
    for (const EntryFacts* ep : listing_order(dc)) {
      const EntryFacts& e = *ep;
      // By default only the executable fatbin when there is one.
      if (dc.kind == ObjectKind::host_elf && !mode.all && dc.has_executable &&
          e.origin != fatbin::Origin::executable)
        continue;
      any_code = true;
      // cuobjdump walks every listed entry, printed or not, and stops at
      // one it refuses; what it printed before stays.
      if (!raw_cubin && (e.kind == fatbin::kElf || e.kind == fatbin::kPtx)) {
        if (auto why = refusal(e, abs)) {
          o.err += *why;
          o.status = 1;
          return o;
        }
      }
      if (e.kind == fatbin::kElf) {
        ++elf_n;
        if (mode.elf) o.out += line("ELF", elf_n, entry_name(e, base, elf_n, raw_cubin));
      } else if (e.kind == fatbin::kPtx) {
        ++ptx_n;
        if (mode.ptx) o.out += line("PTX", ptx_n, entry_name(e, base, ptx_n, raw_cubin));
      } else if (e.flags & 0x10000) {
        o.err += "cuobjdump warning : Can't deobfuscate entry '" + abs + "' without obfuscation key\n";
      }
    }
    // A raw cubin cuobjdump refuses is a file without device code to it.
    if (raw_cubin && !dc.entries.empty() && dc.entries[0].cubin && !dc.entries[0].cubin->rela_link_error.empty()) {
      o.out.clear();
      o.err = "cuobjdump info    : File '" + abs + "' does not contain device code\n";
      o.status = 255;
      return o;
    }
    if (dc.kind != ObjectKind::host_elf && dc.containers > 0) any_code = true;
    if (dc.stopped) {
      o.err += "cuobjdump fatal   : Invalid fatbin header in '" + abs + "'\n";
      o.status = 1;
      return o;
    }
  }
  if (!any_code) {
    o.err += "cuobjdump info    : File '" + abs + "' does not contain device code\n";
    o.status = 255;
    return o;
  }
  if (mode.elf && elf_n == 0)
    o.err += "cuobjdump info    : No ELF file found to extract from '" + abs + "'. You may try with -all option.\n";
  if (mode.ptx && ptx_n == 0)
    o.err += "cuobjdump info    : No PTX file found to extract from '" + abs + "'. You may try with -all option.\n";
  return o;
}

}  // namespace cuwheel::cuobjdump
