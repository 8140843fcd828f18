// The `cuwheel list` report (include/cuwheel/render/list.h): one object's
// device code entries as text lines or JSON (docs/json-schema.md, "list",
// schema 1). The cuobjdump format is render/cuobjdump.h.
#include "cuwheel/render/list.h"

#include <algorithm>
#include <cstdio>

#include "cuwheel/base/bytes.h"
#include "cuwheel/base/expected.h"

namespace cuwheel::render {

namespace {

using json = nlohmann::ordered_json;

const char* compression_name(fatbin::Compression c) {
  switch (c) {
    case fatbin::Compression::none: return "none";
    case fatbin::Compression::lz4: return "lz4";
    case fatbin::Compression::zstd: return "zstd";
    case fatbin::Compression::legacy: return "legacy";
  }
  return "none";
}

const char* origin_name(fatbin::Origin o) {
  switch (o) {
    case fatbin::Origin::executable: return "executable";
    case fatbin::Origin::relocatable: return "relocatable";
    case fatbin::Origin::other: return "other";
    case fatbin::Origin::data: return "data";
  }
  return "other";
}

const char* kind_label(uint16_t kind) {
  switch (kind) {
    case fatbin::kElf: return "sass";
    case fatbin::kPtx: return "ptx";
    case fatbin::kLtoIr: return "ltoir";
    default: return nullptr;
  }
}

/// The architecture a user reads: the cubin's own for SASS (with 'f' from
/// the entry header, which is the only place it is recorded), the virtual
/// architecture for PTX and LTO-IR.
std::string display_arch(const EntryFacts& e) {
  if (e.kind == fatbin::kElf) {
    std::string a = e.cubin ? e.cubin->arch_name() : e.header_arch();
    if (e.arch_f && a.back() != 'a' && a.back() != 'f') a += "f";
    return a;
  }
  if (e.kind == fatbin::kPtx) return e.virtual_arch();
  if (e.kind == fatbin::kLtoIr) return "lto_" + std::to_string(e.sm) + (e.arch_a ? "a" : e.arch_f ? "f" : "");
  return e.header_arch();
}

json entry_json(const EntryFacts& e) {
  json j;
  const char* k = kind_label(e.kind);
  j["kind"] = k ? k : fatbin::kind_name(e.kind);
  j["arch"] = display_arch(e);
  j["sm"] = e.sm;
  j["suffix"] = e.arch_a ? "a" : e.arch_f ? "f" : "";
  if (e.kind == fatbin::kPtx) j["ptx_isa"] = e.ptx_isa();
  if (e.cubin) {
    j["cubin_abi"] = e.cubin->abi_version;
    j["cubin_arch"] = e.cubin->arch_name();
  }
  j["compression"] = compression_name(e.compression);
  j["stored_size"] = e.stored_size;
  j["size"] = e.size;
  j["offset"] = e.offset;
  j["section"] = e.section;
  j["origin"] = origin_name(e.origin);
  j["via_wrapper"] = e.via_wrapper;
  j["debug"] = (e.flags & fatbin::kFlagDebug) != 0;
  if (!e.identifier.empty()) j["identifier"] = e.identifier;
  if (!e.payload_error.empty()) j["payload_error"] = e.payload_error;
  return j;
}

std::string text_entry(const EntryFacts& e) {
  char buf[256];
  const char* k = kind_label(e.kind);
  std::string extra;
  if (e.kind == fatbin::kPtx && !e.ptx_isa().empty()) extra = "ISA " + e.ptx_isa();
  if (e.flags & fatbin::kFlagDebug) extra += extra.empty() ? "debug" : ", debug";
  std::string size = e.compression == fatbin::Compression::none
                         ? std::to_string(e.size) + " B"
                         : std::to_string(e.stored_size) + " B " + compression_name(e.compression) + " (" +
                               std::to_string(e.size) + " B)";
  std::snprintf(buf, sizeof buf, "  %-6s %-13s %-12s %-30s %s %s", k ? k : fatbin::kind_name(e.kind).c_str(),
                display_arch(e).c_str(), extra.c_str(), size.c_str(), e.section.empty() ? "-" : printable(e.section).c_str(),
                hex(e.offset).c_str());
  std::string s = buf;
  while (!s.empty() && s.back() == ' ') s.pop_back();
  return s + "\n";
}

}  // namespace

bool list_selected(const ListSelection& o, const DeviceCode& dc, const EntryFacts& e) {
  if (!o.all && dc.has_executable && dc.kind == ObjectKind::host_elf && e.origin != fatbin::Origin::executable)
    return false;
  if (o.elf || o.ptx) return (o.elf && e.kind == fatbin::kElf) || (o.ptx && e.kind == fatbin::kPtx);
  return true;
}

nlohmann::ordered_json list_object_json(const ObjectRef& obj, const DeviceCode& dc, const ListSelection& sel) {
  json j;
  j["path"] = obj.display();
  if (!obj.member.empty()) j["member"] = obj.member;
  if (!obj.archive_member.empty()) j["archive_member"] = obj.archive_member;
  if (!obj.owner.empty()) j["distribution"] = obj.owner;
  j["containers"] = dc.containers;
  json entries = json::array();
  for (const auto& e : dc.entries)
    if (list_selected(sel, dc, e)) entries.push_back(entry_json(e));
  j["entries"] = std::move(entries);
  return j;
}

std::string render_list_text(const ObjectRef& obj, const DeviceCode& dc, const ListSelection& o, bool plain) {
  // The head line counts every entry of the object (relocatable ones only
  // with --all, as listed); --elf/--ptx choose the lines shown below it and
  // the head says so, so "1 PTX" stays true under --elf. Entries that only
  // --all lists (relocatable fatbins, containers found in data sections)
  // are counted apart, so the head line says what the listing leaves out
  // rather than hiding PTX that show and check count.
  ListSelection kinds_all = o;
  kinds_all.elf = kinds_all.ptx = false;
  ListSelection everything = kinds_all;
  everything.all = true;
  size_t sass = 0, ptx = 0, other = 0, hidden_sass = 0, hidden_ptx = 0, hidden_other = 0;
  std::vector<std::string> hidden_in;
  std::string body;
  for (const auto& e : dc.entries) {
    if (!list_selected(kinds_all, dc, e)) {
      if (!list_selected(everything, dc, e)) continue;
      (e.kind == fatbin::kElf ? hidden_sass : e.kind == fatbin::kPtx ? hidden_ptx : hidden_other)++;
      std::string where = e.section.empty() ? "unnamed sections" : e.section;
      if (std::find(hidden_in.begin(), hidden_in.end(), where) == hidden_in.end()) hidden_in.push_back(where);
      continue;
    }
    if (e.kind == fatbin::kElf) ++sass;
    else if (e.kind == fatbin::kPtx) ++ptx;
    else ++other;
    if (list_selected(o, dc, e)) body += text_entry(e);
  }
  // In wheels and directories, objects without device code are left out.
  if (!plain && dc.entries.empty()) return "";
  std::string head = printable(obj.display()) + ": ";
  if (dc.entries.empty()) head += "no device code";
  else {
    head += std::to_string(sass) + " SASS, " + std::to_string(ptx) + " PTX";
    if (other) head += ", " + std::to_string(other) + " other";
    head += " in " + std::to_string(dc.containers) + (dc.containers == 1 ? " container" : " containers");
    if (o.elf != o.ptx) head += o.elf ? " (listing SASS only)" : " (listing PTX only)";
    if (hidden_sass + hidden_ptx + hidden_other) {
      head += "; --all adds " + std::to_string(hidden_sass) + " SASS, " + std::to_string(hidden_ptx) + " PTX";
      if (hidden_other) head += ", " + std::to_string(hidden_other) + " other";
      head += " in ";
      for (size_t i = 0; i < hidden_in.size(); ++i) head += (i ? ", " : "") + printable(hidden_in[i]);
    }
  }
  return head + "\n" + body;
}

}  // namespace cuwheel::render
