// Device code of one object. See include/cuwheel/object/devicecode.h.
#include "cuwheel/object/devicecode.h"
#include "cuwheel/object/identify.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <set>
#include <thread>

#include "cuwheel/object/elf.h"

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

bool looks_like_object(ByteView d) { return is_object(identify(d)); }

DecodeBudget::DecodeBudget(uint64_t stored_size) : stored_(stored_size) {
  uint64_t scaled = stored_size > UINT64_MAX / kRatio ? UINT64_MAX : stored_size * kRatio;
  limit_ = std::max(kFloor, scaled);
}

void DecodeBudget::add_stored(uint64_t n) {
  stored_ = n > UINT64_MAX - stored_ ? UINT64_MAX : stored_ + n;
  uint64_t scaled = stored_ > UINT64_MAX / kRatio ? UINT64_MAX : stored_ * kRatio;
  limit_ = std::max(kFloor, scaled);
}

bool DecodeBudget::take(uint64_t n) {
  if (n > limit_ - used_) return false;
  used_ += n;
  return true;
}

namespace {

// Cubins that decode to more than this are read from a partial image
// (fatbin::decode_partial) of this prefix and the tables at the end.
constexpr uint64_t kPartialAbove = 4u << 20;
constexpr uint64_t kPartialPrefix = 8u << 20;
// PTX over kPartialAbove is read from its first this many bytes when they
// hold its header (read_ptx_head), else decoded whole.
constexpr uint64_t kPtxHead = 1u << 20;

void fill_payload(EntryFacts& f, const fatbin::Entry& e, Depth depth, WarningSink* warnings) {
  if (depth == Depth::headers) return;
  auto fail = [&](const Error& err) {
    f.payload_error = err.message();
    if (warnings) warnings->warn(err.message());
  };
  // (fill_payloads passes no sink: errors stay in payload_error until then.)
  // One decode buffer per thread, reused for every entry it reads (the
  // facts read from a payload own their bytes).
  // A buffer over 16 MiB (a few cubins of NCCL and cuBLAS decode to over
  // 100 MB) is freed after use, so it does not stay resident per thread.
  thread_local fatbin::DecodeBuffer scratch;
  struct Trim {
    ~Trim() { scratch.trim(kPartialAbove); }
  } trim_after;
  if (e.kind == fatbin::kElf) {
    if (f.compression == fatbin::Compression::none) {
      auto c = cubin::read_cubin(e.stored, depth >= Depth::verify, depth == Depth::full);
      if (c) f.cubin = std::move(*c);
      else fail(c.error().context("entry at " + hex(e.offset)));
    } else if (depth == Depth::arch) {
      // Decoding even the first 64 bytes of a ZSTD frame costs a whole block
      // (up to 128 KiB); for thousands of entries that dominates a listing.
      return;
    } else {
      // A large ZSTD cubin (NCCL's and PyTorch's reach 40-200 MB, code in
      // the middle) is decoded through the ZSTD window, keeping only its
      // first 8 MiB and the tables at its end, which is where nvcc puts all
      // that read_cubin reads. When something it reads lies elsewhere, the
      // whole is decoded again: the facts never depend on the shortcut.
      if (f.compression == fatbin::Compression::zstd && e.uncompressed_size > kPartialAbove) {
        thread_local fatbin::PartialBuffer partial;
        auto p = fatbin::decode_partial(e, partial, kPartialPrefix,
                                        [](ByteView head) { return cubin::cubin_tables_from(head, kPartialPrefix); });
        if (!p) return fail(p.error());
        if (cubin::cubin_reads_within(p->view, p->kept)) {
          auto c = cubin::read_cubin(p->view, true, depth == Depth::full);
          if (c) f.cubin = std::move(*c);
          else fail(c.error().context("entry at " + hex(e.offset)));
          return;
        }
      }
      auto d = fatbin::decode_into(e, scratch);
      if (!d) return fail(d.error());
      auto c = cubin::read_cubin(*d, true, depth == Depth::full);
      if (c) f.cubin = std::move(*c);
      else fail(c.error().context("entry at " + hex(e.offset)));
    }
  } else if (e.kind == fatbin::kPtx && depth >= Depth::verify) {
    if (f.compression == fatbin::Compression::none) {
      f.ptx = cubin::read_ptx(e.stored, depth == Depth::full);
    } else {
      // Without entry names, only the header directives at the start are
      // read: a large ZSTD PTX is decoded to its end (verified alike) but
      // only its first kPtxHead bytes are kept, instead of a fresh buffer
      // of its whole size (vLLM's flash-attention PTX is 6-11 MB each).
      if (depth == Depth::verify && f.compression == fatbin::Compression::zstd &&
          e.uncompressed_size > kPartialAbove) {
        auto h = fatbin::decode_head(e, scratch, kPtxHead);
        if (!h) return fail(h.error());
        bool decided = h->size() < kPtxHead;
        cubin::PtxInfo info = decided ? cubin::read_ptx(*h, false) : cubin::read_ptx_head(*h, &decided);
        if (decided) {
          f.ptx = std::move(info);
          return;
        }
      }
      auto d = fatbin::decode_into(e, scratch);
      if (!d) return fail(d.error());
      f.ptx = cubin::read_ptx(*d, depth == Depth::full);
    }
  }
}

EntryFacts facts_of(const fatbin::Entry& e, size_t container, const fatbin::Located* where) {
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
  return f;
}

// Reads the payload facts of every entry. Entries are independent, so at
// Depth::verify and Depth::full (which decode every compressed payload) the work is spread
// over the machine's cores; warnings are emitted afterwards, in entry order,
// so the output does not depend on the schedule.
// "1024.0 MiB", "33.0 KiB", "17 bytes".
std::string bytes_text(uint64_t n) {
  char buf[64];
  if (n >= (1u << 20)) std::snprintf(buf, sizeof buf, "%.1f MiB", double(n) / (1 << 20));
  else if (n >= 1024) std::snprintf(buf, sizeof buf, "%.1f KiB", double(n) / 1024);
  else std::snprintf(buf, sizeof buf, "%llu bytes", static_cast<unsigned long long>(n));
  return buf;
}

// Takes, in entry order, what each entry that Depth::verify or Depth::full decodes can
// produce from `budget`. Entries past it are marked in `refused` and share
// one payload_error with the figures.
void admit_within(std::vector<EntryFacts>& facts, const std::vector<const fatbin::Entry*>& entries,
                  DecodeBudget& budget, std::vector<char>& refused) {
  refused.assign(entries.size(), 0);
  size_t n_refused = 0;
  uint64_t asked = 0;
  const fatbin::Entry* first = nullptr;
  for (size_t i = 0; i < entries.size(); ++i) {
    const fatbin::Entry& e = *entries[i];
    if (e.kind != fatbin::kElf && e.kind != fatbin::kPtx) continue;
    uint64_t n = fatbin::decode_bound(e);
    if (n == 0 || budget.take(n)) continue;
    refused[i] = 1;
    ++n_refused;
    asked = asked > UINT64_MAX - n ? UINT64_MAX : asked + n;
    if (!first) first = &e;
  }
  if (!n_refused) return;
  std::string what = "entry at " + hex(first->offset);
  if (n_refused > 1) what += " and " + std::to_string(n_refused - 1) + " more";
  const std::string message =
      "decompression bomb: " + what + " would decode to " + bytes_text(asked) + ", past the " +
      bytes_text(budget.limit()) + " this input may decode (" + std::to_string(DecodeBudget::kRatio) +
      " times its " + bytes_text(budget.stored_size()) + ", at least " + bytes_text(DecodeBudget::kFloor) +
      (budget.used() ? "; " + bytes_text(budget.used()) + " taken before" : std::string()) + "); not decoded";
  for (size_t i = 0; i < entries.size(); ++i)
    if (refused[i]) facts[i].payload_error = message;
}

void fill_payloads(std::vector<EntryFacts>& facts, const std::vector<const fatbin::Entry*>& entries, Depth depth,
                   WarningSink* warnings, const DoneFn& done, DecodeBudget& budget) {
  if (depth == Depth::headers) return;
  std::vector<char> refused(entries.size(), 0);
  if (depth >= Depth::verify) admit_within(facts, entries, budget, refused);
  auto work = [&](size_t i) {
    if (!refused[i]) fill_payload(facts[i], *entries[i], depth, nullptr);
    if (done) done(entries[i]->stored);
  };
  size_t threads = 1;
  if (depth >= Depth::verify && entries.size() >= 16)
    threads = std::min<size_t>(std::max(1u, std::thread::hardware_concurrency()), 8);
  if (threads <= 1) {
    for (size_t i = 0; i < entries.size(); ++i) work(i);
  } else {
    std::atomic<size_t> next{0};
    std::vector<std::thread> pool;
    auto worker = [&] {
      for (size_t i = next++; i < entries.size(); i = next++) work(i);
    };
    for (size_t t = 1; t < threads; ++t) {
      try {
        pool.emplace_back(worker);
      } catch (...) {
        break;  // no more threads: the ones started, and this one, finish the work
      }
    }
    worker();
    for (auto& th : pool) th.join();
  }
  if (!warnings) return;
  // What makes cuobjdump stop the listing (docs/cuobjdump-behaviour.md),
  // once per object: the file stays readable here.
  std::set<std::string> old_archs;
  size_t old_n = 0, rela_n = 0;
  const EntryFacts* first_old = nullptr;
  const EntryFacts* first_rela = nullptr;
  for (const auto& f : facts) {
    if ((f.kind == fatbin::kElf || f.kind == fatbin::kPtx) && f.sm < 50) {
      old_archs.insert((f.kind == fatbin::kElf ? "sm_" : "compute_") + std::to_string(f.sm));
      if (!old_n++) first_old = &f;
    }
    if (f.cubin && !f.cubin->rela_link_error.empty() && !rela_n++) first_rela = &f;
  }
  if (first_old) {
    std::string names;
    for (const auto& n : old_archs) names += (names.empty() ? "" : ", ") + n;
    warnings->warn(std::to_string(old_n) + (old_n == 1 ? " entry names " : " entries name ") + names +
                   " (first: entry at " + hex(first_old->offset) +
                   "), below sm_50, which CUDA 12 and later toolkits no longer build; cuobjdump stops listing there");
  }
  if (first_rela)
    warnings->warn(std::to_string(rela_n) + (rela_n == 1 ? " cubin has" : " cubins have") +
                   " an SHT_RELA section not linked to the symbol table (first: entry at " + hex(first_rela->offset) +
                   ": " + first_rela->cubin->rela_link_error + "); cuobjdump stops listing there with \"Invalid ELF\"");
  for (const auto& f : facts) {
    if (!f.payload_error.empty()) warnings->warn(f.payload_error);
    // The driver selects on the entry header, the listing names the cubin:
    // a disagreement means a crafted or damaged file.
    if (depth >= Depth::verify && f.cubin && f.sm != 0 &&
        (f.cubin->sm != f.sm || (f.cubin->arch_a != f.arch_a && f.cubin->abi_version >= 8)))
      warnings->warn("entry at " + hex(f.offset) + ": the entry header says " + f.header_arch() + " but the cubin is " +
                     f.cubin->arch_name());
  }
}

}  // namespace

Expected<DeviceCode> read_device_code(ByteView data, Depth depth, WarningSink* warnings, const DoneFn& done,
                                      DecodeBudget* budget, Sections sections) {
  DecodeBudget own(data.size());
  if (!budget) budget = &own;
  DeviceCode out;
  uint32_t magic = 0;
  if (load_le(data, 0, magic) && magic == fatbin::kContainerMagic) {
    out.kind = ObjectKind::fatbin;
    std::vector<fatbin::Container> partial;
    auto cs = fatbin::parse_region(data, 0, &partial);
    if (!cs) return cs.error();
    out.containers = cs->size();
    std::vector<const fatbin::Entry*> raw;
    for (size_t i = 0; i < cs->size(); ++i)
      for (const auto& e : (*cs)[i].entries) {
        out.entries.push_back(facts_of(e, i, nullptr));
        raw.push_back(&e);
      }
    fill_payloads(out.entries, raw, depth, warnings, done, *budget);
    out.has_executable = true;
    return out;
  }
  auto f = elf::File::parse(data, warnings);
  if (!f) return f.error();
  return read_device_code(*f, depth, warnings, done, budget, sections);
}

Expected<DeviceCode> read_device_code(const elf::File& file, Depth depth, WarningSink* warnings, const DoneFn& done,
                                      DecodeBudget* budget, Sections sections) {
  DeviceCode out;
  const ByteView data = file.data();
  DecodeBudget own(data.size());
  if (!budget) budget = &own;
  const elf::File* f = &file;
  if (f->machine() == elf::EM_CUDA) {
    // A raw cubin is one ELF entry by itself.
    out.kind = ObjectKind::cubin;
    EntryFacts e;
    e.kind = fatbin::kElf;
    e.size = e.stored_size = data.size();
    auto c = depth == Depth::headers ? cubin::read_cubin_header(data) : cubin::read_cubin(data, depth >= Depth::verify);
    if (!c) return c.error();
    e.sm = c->sm;
    e.arch_a = c->arch_a;
    e.cubin = std::move(*c);
    out.entries.push_back(std::move(e));
    out.containers = 1;
    out.has_executable = true;
    return out;
  }
  auto located = fatbin::find_in_elf(*f, warnings, &out.stopped, done, sections == Sections::all);
  if (!located) return located.error();
  // Finding the containers touched relocation tables and headers all over
  // the file; let them go before the payloads are read.
  if (done) done(data);
  out.containers = located->size();
  std::vector<const fatbin::Entry*> raw;
  for (size_t i = 0; i < located->size(); ++i) {
    const auto& l = (*located)[i];
    if (l.origin == fatbin::Origin::executable) out.has_executable = true;
    for (const auto& e : l.container.entries) {
      out.entries.push_back(facts_of(e, i, &l));
      raw.push_back(&e);
    }
  }
  fill_payloads(out.entries, raw, depth, warnings, done, *budget);
  if (done)
    for (const auto& l : *located) done(data.subspan(l.container.offset, l.container.end() - l.container.offset));
  return out;
}

}  // namespace cuwheel
