// Device code of one object. See include/cuwheel/devicecode.h.
#include "cuwheel/devicecode.h"

#include "cuwheel/elf.h"

namespace cuwheel {

std::string EntryFacts::header_arch() const {
  return "sm_" + std::to_string(sm) + (arch_a ? "a" : arch_f ? "f" : "");
}

std::string EntryFacts::virtual_arch() const {
  return "compute_" + std::to_string(sm) + (arch_a ? "a" : arch_f ? "f" : "");
}

std::string EntryFacts::ptx_isa() const {
  if (ptx && ptx->version) return std::to_string(ptx->version->first) + "." + std::to_string(ptx->version->second);
  if (kind == fatbin::kPtx && (code_major || code_minor))
    return std::to_string(code_major) + "." + std::to_string(code_minor);
  return "";
}

bool looks_like_object(ByteView d) {
  uint32_t magic = 0;
  return elf::File::has_magic(d) || (load_le(d, 0, magic) && magic == fatbin::kContainerMagic);
}

namespace {

void fill_payload(EntryFacts& f, const fatbin::Entry& e, Depth depth, WarningSink* warnings) {
  if (depth == Depth::headers) return;
  auto fail = [&](const Error& err) {
    f.payload_error = err.message();
    if (warnings) warnings->warn(err.message());
  };
  if (e.kind == fatbin::kElf) {
    if (f.compression == fatbin::Compression::none) {
      auto c = cubin::read_cubin(e.stored, depth == Depth::full);
      if (c) f.cubin = std::move(*c);
      else fail(c.error().context("entry at " + hex(e.offset)));
    } else if (depth == Depth::arch) {
      auto pre = fatbin::decode_prefix(e, 64);
      if (!pre) return fail(pre.error());
      auto c = cubin::read_cubin_header(*pre);
      if (!c) return fail(c.error().context("entry at " + hex(e.offset)));
      // An ABI v8 cubin records 'a' in a section; without decoding the whole
      // payload, take it from the entry header (they agree in every
      // toolchain-built file; Depth::full checks).
      if (c->abi_version >= 8) c->arch_a = e.arch_a();
      f.cubin = std::move(*c);
    } else {
      auto d = fatbin::decode(e);
      if (!d) return fail(d.error());
      auto c = cubin::read_cubin(*d, true);
      if (c) f.cubin = std::move(*c);
      else fail(c.error().context("entry at " + hex(e.offset)));
    }
  } else if (e.kind == fatbin::kPtx && depth == Depth::full) {
    if (f.compression == fatbin::Compression::none) {
      f.ptx = cubin::read_ptx(e.stored, true);
    } else {
      auto d = fatbin::decode(e);
      if (!d) return fail(d.error());
      f.ptx = cubin::read_ptx(*d, true);
    }
  }
}

EntryFacts facts_of(const fatbin::Entry& e, size_t container, const fatbin::Located* where, Depth depth,
                    WarningSink* warnings, const DoneFn& done) {
  EntryFacts f;
  f.offset = e.offset;
  f.container = container;
  if (where) {
    f.section = where->section;
    f.origin = where->origin;
    f.via_wrapper = where->via_wrapper;
  }
  f.kind = e.kind;
  f.sm = e.arch;
  f.arch_a = e.arch_a();
  f.arch_f = e.arch_f();
  f.code_major = e.code_major;
  f.code_minor = e.code_minor;
  f.flags = e.flags;
  f.compression = e.compression();
  f.stored_size = e.stored.size();
  f.size = f.compression == fatbin::Compression::none ? e.payload_size : e.uncompressed_size;
  f.identifier = e.identifier;
  fill_payload(f, e, depth, warnings);
  if (done && depth != Depth::headers) done(e.stored);
  return f;
}

}  // namespace

Expected<DeviceCode> read_device_code(ByteView data, Depth depth, WarningSink* warnings, const DoneFn& done) {
  DeviceCode out;
  uint32_t magic = 0;
  if (load_le(data, 0, magic) && magic == fatbin::kContainerMagic) {
    out.kind = ObjectKind::fatbin;
    std::vector<fatbin::Container> partial;
    auto cs = fatbin::parse_region(data, 0, &partial);
    if (!cs) return cs.error();
    out.containers = cs->size();
    for (size_t i = 0; i < cs->size(); ++i)
      for (const auto& e : (*cs)[i].entries) out.entries.push_back(facts_of(e, i, nullptr, depth, warnings, done));
    out.has_executable = true;
    return out;
  }
  auto f = elf::File::parse(data, warnings);
  if (!f) return f.error();
  if (f->machine() == elf::EM_CUDA) {
    // A raw cubin is one ELF entry by itself.
    out.kind = ObjectKind::cubin;
    EntryFacts e;
    e.kind = fatbin::kElf;
    e.size = e.stored_size = data.size();
    auto c = depth == Depth::headers ? cubin::read_cubin_header(data) : cubin::read_cubin(data, depth == Depth::full);
    if (!c) return c.error();
    e.sm = c->sm;
    e.arch_a = c->arch_a;
    e.cubin = std::move(*c);
    out.entries.push_back(std::move(e));
    out.containers = 1;
    out.has_executable = true;
    return out;
  }
  auto located = fatbin::find_in_elf(*f, warnings, &out.stopped, done);
  if (!located) return located.error();
  out.containers = located->size();
  for (size_t i = 0; i < located->size(); ++i) {
    const auto& l = (*located)[i];
    if (l.origin == fatbin::Origin::executable) out.has_executable = true;
    for (const auto& e : l.container.entries) out.entries.push_back(facts_of(e, i, &l, depth, warnings, done));
    if (done) done(data.subspan(l.container.offset, l.container.end() - l.container.offset));
  }
  return out;
}

}  // namespace cuwheel
