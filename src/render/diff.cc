// The `cuwheel diff` report as text and JSON (include/cuwheel/render/diff.h).
#include "cuwheel/render/diff.h"

#include <cinttypes>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "cuwheel/base/bytes.h"

namespace cuwheel::render {

namespace {

using json = nlohmann::ordered_json;

// "812.3 MB", "5.0 kB", "17 B" (powers of 10, as sizes are written in policies).
std::string human(uint64_t b) {
  char buf[32];
  if (b < 1000) std::snprintf(buf, sizeof buf, "%" PRIu64 " B", b);
  else if (b < 1000 * 1000) std::snprintf(buf, sizeof buf, "%.1f kB", b / 1e3);
  else if (b < 1000ull * 1000 * 1000) std::snprintf(buf, sizeof buf, "%.1f MB", b / 1e6);
  else std::snprintf(buf, sizeof buf, "%.2f GB", b / 1e9);
  return buf;
}

std::string signed_human(int64_t d) {
  uint64_t mag = d < 0 ? uint64_t(0) - uint64_t(d) : uint64_t(d);
  return (d < 0 ? "-" : "+") + human(mag);
}

std::string percent(uint64_t old_size, uint64_t new_size) {
  if (old_size == 0) return new_size == 0 ? "+0.0%" : "new";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%+.1f%%", (double(new_size) - double(old_size)) * 100.0 / double(old_size));
  return buf;
}

// Names from the wheels (sonames, RUNPATH entries) are escaped here.
std::string join(const std::vector<std::string>& v, const std::string& prefix, const std::string& sep = " ") {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + prefix + printable(v[i]);
  return s;
}

// "wheel size 1.0 MB -> 1.2 MB (+200.0 kB, +20.0%) exceeds --max-growth 10%".
std::string gate_line(const diff::Gate& g) {
  return g.what + " " + human(g.old_size) + " -> " + human(g.new_size) + " (" +
         signed_human(int64_t(g.new_size) - int64_t(g.old_size)) + ", " + percent(g.old_size, g.new_size) + ") " +
         (g.exceeded ? "exceeds" : "is within") + " " + g.flag + " " + g.limit.text;
}

const char* kind_name(diff::MemberChange::Kind k) {
  switch (k) {
    case diff::MemberChange::Kind::added: return "added";
    case diff::MemberChange::Kind::removed: return "removed";
    case diff::MemberChange::Kind::changed: return "changed";
  }
  return "changed";
}


nlohmann::ordered_json diff_document(const diff::WheelDiff& d, const std::vector<diff::Gate>& gates) {
  json doc;
  doc["schema"] = 1;
  doc["tool"] = "cuwheel " CUWHEEL_VERSION;
  doc["command"] = "diff";
  doc["old"] = json{{"path", d.old_path}, {"size", d.old_file_size}, {"installed_size", d.old_installed}};
  doc["new"] = json{{"path", d.new_path}, {"size", d.new_file_size}, {"installed_size", d.new_installed}};
  doc["change"] = json{{"size", d.file_delta()}, {"installed_size", d.installed_delta()},
                       {"unchanged_members", d.unchanged_members}};
  json members = json::array();
  for (const auto& m : d.members) {
    json j{{"name", m.name}, {"status", kind_name(m.kind)},
           {"old", json{{"compressed_size", m.old_compressed}, {"size", m.old_size}}},
           {"new", json{{"compressed_size", m.new_compressed}, {"size", m.new_size}}},
           {"compressed_delta", m.compressed_delta()}, {"size_delta", m.size_delta()}};
    if (!m.old_name.empty()) j["old_name"] = m.old_name;
    members.push_back(std::move(j));
  }
  doc["members"] = members;
  json dups = json::array();
  for (const auto& du : d.duplicates)
    dups.push_back(json{{"wheel", du.wheel}, {"path", du.path}, {"member", du.member}, {"copies", du.copies}});
  doc["duplicates"] = dups;
  json libs = json::array();
  for (const auto& l : d.libraries) {
    libs.push_back(json{{"member", l.member},
                        {"status", l.in_old ? (l.in_new ? "changed" : "removed") : "added"},
                        {"sass_added", l.sass_added},
                        {"sass_removed", l.sass_removed},
                        {"ptx_added", l.ptx_added},
                        {"ptx_removed", l.ptx_removed},
                        {"old_device_code_bytes", l.old_device_bytes},
                        {"new_device_code_bytes", l.new_device_bytes},
                        {"needed_added", l.needed_added},
                        {"needed_removed", l.needed_removed},
                        {"old_search_path", json{{"tag", l.search_tag_old}, {"entries", l.old_search_path}}},
                        {"new_search_path", json{{"tag", l.search_tag_new}, {"entries", l.new_search_path}}}});
  }
  doc["libraries"] = libs;
  json limits = json::array();
  for (const auto& g : gates)
    limits.push_back(json{{"flag", g.flag}, {"limit", g.limit.text}, {"measure", g.what},
                          {"old", g.old_size}, {"new", g.new_size}, {"exceeded", g.exceeded}});
  doc["limits"] = limits;
  return doc;
}

}  // namespace

std::string render_diff_text(const diff::WheelDiff& d, const std::vector<diff::Gate>& gates, size_t top) {
  std::string out;
  size_t added = 0, removed = 0, changed = 0;
  for (const auto& m : d.members)
    (m.kind == diff::MemberChange::Kind::added ? added : m.kind == diff::MemberChange::Kind::removed ? removed : changed)++;
  // Every name that comes from the input (paths, member names, sonames,
  // RUNPATH entries) goes through printable(): a member named
  // "x\n::error ..." must not start a line a CI runner reads as a command.
  out += "old  " + printable(d.old_path) + "\nnew  " + printable(d.new_path) + "\n";
  char line[512];
  std::snprintf(line, sizeof line, "  %-16s%12s -> %-12s %12s  %s\n", "wheel size", human(d.old_file_size).c_str(),
                human(d.new_file_size).c_str(), signed_human(d.file_delta()).c_str(),
                percent(d.old_file_size, d.new_file_size).c_str());
  out += line;
  std::snprintf(line, sizeof line, "  %-16s%12s -> %-12s %12s  %s\n", "installed size", human(d.old_installed).c_str(),
                human(d.new_installed).c_str(), signed_human(d.installed_delta()).c_str(),
                percent(d.old_installed, d.new_installed).c_str());
  out += line;
  out += "  members         " + std::to_string(added) + " added, " + std::to_string(removed) + " removed, " +
         std::to_string(changed) + " changed, " + std::to_string(d.unchanged_members) + " unchanged\n";
  if (!d.members.empty()) {
    out += "\nmembers (largest change in the wheel first; compressed, then installed):\n";
    size_t shown = 0;
    for (const auto& m : d.members) {
      if (top && shown == top) {
        out += "  ... and " + std::to_string(d.members.size() - shown) + " more (--top 0 lists all)\n";
        break;
      }
      ++shown;
      const char* mark = m.kind == diff::MemberChange::Kind::added ? "+" : m.kind == diff::MemberChange::Kind::removed ? "-" : "~";
      std::snprintf(line, sizeof line, "  %s %12s %12s  ", mark, signed_human(m.compressed_delta()).c_str(),
                    signed_human(m.size_delta()).c_str());
      out += line + printable(m.name);
      if (m.kind == diff::MemberChange::Kind::changed)
        out += "  (" + human(m.old_compressed) + " -> " + human(m.new_compressed) + " stored)";
      if (!m.old_name.empty()) out += "  (was " + printable(m.old_name) + ")";
      out += "\n";
    }
  }
  if (!d.libraries.empty()) {
    out += "\nlibraries:\n";
    for (const auto& l : d.libraries) {
      out += "  " + printable(l.member) + (l.in_old ? (l.in_new ? "" : "  (removed)") : "  (added)") + "\n";
      if (!l.sass_added.empty() || !l.sass_removed.empty())
        out += "    sass          " + join(l.sass_added, "+") + (l.sass_added.empty() || l.sass_removed.empty() ? "" : " ") +
               join(l.sass_removed, "-") + "\n";
      if (!l.ptx_added.empty() || !l.ptx_removed.empty())
        out += "    ptx           " + join(l.ptx_added, "+") + (l.ptx_added.empty() || l.ptx_removed.empty() ? "" : " ") +
               join(l.ptx_removed, "-") + "\n";
      if (l.old_device_bytes != l.new_device_bytes)
        out += "    device code   " + human(l.old_device_bytes) + " -> " + human(l.new_device_bytes) + " (" +
               signed_human(int64_t(l.new_device_bytes) - int64_t(l.old_device_bytes)) + ")\n";
      if (!l.needed_added.empty() || !l.needed_removed.empty())
        out += "    needed        " + join(l.needed_added, "+") +
               (l.needed_added.empty() || l.needed_removed.empty() ? "" : " ") + join(l.needed_removed, "-") + "\n";
      if (l.old_search_path != l.new_search_path || l.search_tag_old != l.search_tag_new) {
        auto side = [](const std::string& tag, const std::vector<std::string>& v) {
          return tag.empty() ? std::string("-") : tag + " " + join(v, "", ":");
        };
        out += "    search path   " + side(l.search_tag_old, l.old_search_path) + " -> " +
               side(l.search_tag_new, l.new_search_path) + "\n";
      }
    }
  }
  for (const auto& g : gates) out += std::string("\n") + (g.exceeded ? "FAIL" : "ok") + ": " + gate_line(g);
  if (!gates.empty()) out += "\n";
  return out;
}

std::vector<Diagnostic> diff_diagnostics(const diff::WheelDiff& d, const std::vector<diff::Gate>& gates) {
  std::vector<Diagnostic> out;
  for (const auto& g : gates) {
    if (!g.exceeded) continue;
    Diagnostic x;
    x.rule = g.flag == "--max-installed-growth" ? "installed-growth" : "wheel-growth";
    x.path = d.new_path;
    x.message = gate_line(g) + " (old: " + d.old_path + ")";
    x.hint = "find the growth in `cuwheel diff` text output (largest change first), or raise " + g.flag +
             " if it is intended";
    out.push_back(std::move(x));
  }
  for (const auto& du : d.duplicates) {
    Diagnostic x;
    x.rule = "duplicate-member";
    x.severity = Severity::warning;
    x.path = du.path;
    x.member = du.member;
    x.message = "stored " + std::to_string(du.copies) + " times; installers keep the last copy, which is the one compared";
    x.hint = "write each member once when building the wheel";
    out.push_back(std::move(x));
  }
  return out;
}

std::string render_diff_json(const diff::WheelDiff& d, const std::vector<diff::Gate>& gates) {
  return diff_document(d, gates).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace cuwheel::render
