// record-mismatch: RECORD must list every member of the wheel with its
// digest and size, and nothing else. PEP 427 ("The .dist-info directory":
// RECORD lists every file but itself and the signatures, each with a hash;
// installers must verify it) and the PyPA "Recording installed projects"
// page (CSV path,algo=digest,size; sha256 or stronger, no md5/sha1). The
// member digests come from the model, computed with the algorithm of each
// member's RECORD line.
#include <map>
#include <set>

#include "rules.h"
#include "wheel_util.h"

namespace cuwheel::check::rule_impl {

namespace {

// Findings per kind of problem before the rest is summed up in one line,
// so a wheel whose RECORD is wholly wrong gives a readable report.
constexpr size_t kMaxPerKind = 20;

bool is_dir(const std::string& name) { return !name.empty() && name.back() == '/'; }

}  // namespace

void record_mismatch(const Context& ctx, Emitter& out) {
  const CheckModel& m = ctx.model;
  if (m.kind != CheckModel::Kind::wheel || m.dist_info.empty()) return;
  const std::string record_name = m.dist_info + "/RECORD";
  if (!m.record) {
    out.emit(record_name, "", m.record_error.empty() ? "RECORD is missing" : m.record_error,
             "build the wheel with a PEP 517 backend or `wheel pack`, which write RECORD");
    return;
  }
  // Files that RECORD does not (or cannot) carry a hash for.
  const std::set<std::string> exempt = {record_name, m.dist_info + "/RECORD.jws", m.dist_info + "/RECORD.p7s"};

  std::map<std::string, const MemberModel*> members;
  for (const auto& mm : m.members)
    if (!is_dir(mm.name)) members.emplace(mm.name, &mm);

  std::map<std::string, size_t> counts;
  std::map<std::string, size_t> dropped;
  auto report = [&](const std::string& kind, const std::string& member, const std::string& location,
                    const std::string& message, const std::string& hint) {
    if (++counts[kind] > kMaxPerKind) {
      ++dropped[kind];
      return;
    }
    out.emit(member, location, message, hint);
  };
  const std::string rebuild = "rebuild the wheel (or run `wheel pack` on its unpacked tree) instead of editing it after the build";

  // RECORD lines.
  std::set<std::string> listed;
  for (const auto& e : m.record->entries) {
    const std::string where = "RECORD line " + std::to_string(e.line);
    if (e.path.empty()) continue;  // a malformed row; nothing to match
    if (!listed.insert(e.path).second) {
      report("duplicate", record_name, where, "RECORD lists " + printable(e.path) + " more than once", rebuild);
      continue;
    }
    auto it = members.find(e.path);
    if (it == members.end()) {
      if (!is_dir(e.path))
        report("extra", record_name, where, "RECORD lists " + printable(e.path) + ", which is not in the wheel", rebuild);
      continue;
    }
    const MemberModel& mm = *it->second;
    if (e.hash_algorithm.empty()) {
      if (!exempt.count(e.path))
        report("nohash", printable(e.path), where, "RECORD gives no hash for this member", rebuild);
    } else if (e.hash_algorithm != "sha256" && e.hash_algorithm != "sha384" && e.hash_algorithm != "sha512") {
      report("algorithm", printable(e.path), where,
             "RECORD hashes this member with " + printable(e.hash_algorithm) +
                 ", which installers refuse (sha256 or stronger is required)",
             rebuild);
    } else if (mm.read_ok && !mm.digest.empty() && mm.digest != e.hash_algorithm + "=" + e.hash_value) {
      report("digest", printable(e.path), where,
             "digest differs from RECORD: RECORD has " + printable(e.hash_algorithm + "=" + e.hash_value) +
                 ", the member is " + mm.digest,
             rebuild);
    }
    if (e.size && *e.size != mm.size)
      report("size", printable(e.path), where,
             "size differs from RECORD: RECORD has " + std::to_string(*e.size) + " bytes, the member is " +
                 std::to_string(mm.size),
             rebuild);
  }

  // Members.
  for (const auto& [name, mm] : members) {
    if (listed.count(name) || exempt.count(name)) continue;
    report("unlisted", printable(name), "", "member is not listed in RECORD", rebuild);
  }

  static const std::map<std::string, std::string> kWhat = {
      {"duplicate", "duplicate RECORD lines"}, {"extra", "RECORD lines naming no member"},
      {"nohash", "members without a hash"},    {"algorithm", "members with a refused hash algorithm"},
      {"digest", "digest mismatches"},         {"size", "size mismatches"},
      {"unlisted", "members missing from RECORD"}};
  for (const auto& [kind, n] : dropped)
    out.emit(record_name, "", "and " + std::to_string(n) + " more " + kWhat.at(kind) + " (" +
                                  std::to_string(counts[kind]) + " in all)",
             rebuild);
}

}  // namespace cuwheel::check::rule_impl
