// cuobjdump listing emulation. See include/cuwheel/cuobjdump.h and
// docs/cuobjdump-behaviour.md for the observations behind each rule.
#include "cuwheel/cuobjdump.h"

#include <cstdio>

namespace cuwheel::cuobjdump {

std::string base_of(const std::string& file_name) {
  size_t dot = file_name.rfind('.');
  if (dot == std::string::npos || dot == 0) return file_name;
  return file_name.substr(0, dot);
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
  if (!e.identifier.empty()) return base_of(last_component(e.identifier)) + "." + arch + "." + ext;
  return base + "." + std::to_string(ordinal) + "." + arch + "." + ext;
}

}  // namespace

Output render(const std::string& path, const std::string& cwd, FileKind kind, const std::vector<ObjectCode>& objects,
              const Mode& mode_in) {
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
  const std::string base = base_of(last_component(path));
  int elf_n = 0, ptx_n = 0;
  bool any_code = false;
  for (const auto& obj : objects) {
    if (!obj.code) {
      // A raw fatbin whose header lies is rejected up front; any other
      // unreadable object simply has no device code cuobjdump can see.
      if (!is_archive && obj.code.error().message().rfind("fatbin container", 0) == 0) {
        o.out.clear();
        o.err = "cuobjdump fatal   : Invalid fatbin header in '" + abs + "'\n";
        o.status = 1;
        return o;
      }
      continue;
    }
    const DeviceCode& dc = *obj.code;
    if (dc.containers == 0) continue;
    any_code = true;
    const bool raw_cubin = dc.kind == ObjectKind::cubin;
    if (is_archive) o.out += "\nmember " + abs + ":" + obj.member + ":\n";
    for (const auto& e : dc.entries) {
      if (!mode.all && dc.has_executable && dc.kind == ObjectKind::host_elf && e.origin != fatbin::Origin::executable)
        continue;
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
