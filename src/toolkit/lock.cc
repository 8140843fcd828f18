// The toolkit lock file: reading, canonical writing (see
// include/cuwheel/toolkit/lock.h for the format).
//
// Header-only toml++ with exceptions off: parse errors come back as values
// (toml::parse_result), as in src/check/policy.cc.
#include "base/toml_safe.h"
#include "base/suggest.h"

#include <algorithm>
#include <cstdio>

#include "cuwheel/base/fileio.h"
#include "cuwheel/toolkit/lock.h"
#include "cuwheel/toolkit/repo.h"

namespace cuwheel::toolkit {

const LockedToolkit* Lock::find(const std::string& name) const {
  for (const LockedToolkit& t : toolkits)
    if (t.name == name) return &t;
  return nullptr;
}

void Lock::upsert(LockedToolkit t) {
  for (LockedToolkit& existing : toolkits)
    if (existing.name == t.name) {
      existing = std::move(t);
      return;
    }
  toolkits.push_back(std::move(t));
  std::sort(toolkits.begin(), toolkits.end(),
            [](const LockedToolkit& a, const LockedToolkit& b) { return a.name < b.name; });
}

namespace {

constexpr size_t kMaxLockBytes = 64u << 20;

std::string where(const std::string& file, const toml::node& n) {
  return file + ":" + std::to_string(n.source().begin.line);
}

bool is_hex(const std::string& s, size_t len) {
  return s.size() == len && std::all_of(s.begin(), s.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
         });
}

// Lock keys and toolkit names are bare TOML keys: ASCII letters, digits,
// '-' and '_' (TOML 1.0, "Keys").
bool bare_key(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
  });
}

// Reads string `key` of `t`; `required` makes absence an error.
Status get_string(const std::string& file, const toml::table& t, const std::string& ctx, std::string_view key,
                  bool required, std::string& out) {
  const toml::node* n = t.get(key);
  if (!n) {
    if (!required) return Ok{};
    return Error(where(file, t) + ": " + ctx + " has no " + std::string(key));
  }
  const auto* s = n->as_string();
  if (!s) return Error(where(file, *n) + ": " + ctx + ": " + std::string(key) + " must be a string");
  out = s->get();
  return Ok{};
}

Status get_list(const std::string& file, const toml::table& t, const std::string& ctx, std::string_view key,
                std::vector<std::string>& out) {
  const toml::node* n = t.get(key);
  if (!n) return Ok{};
  const auto* arr = n->as_array();
  if (!arr) return Error(where(file, *n) + ": " + ctx + ": " + std::string(key) + " must be an array of strings");
  for (const toml::node& e : *arr) {
    const auto* s = e.as_string();
    if (!s) return Error(where(file, e) + ": " + ctx + ": " + std::string(key) + " must hold strings only");
    out.push_back(s->get());
  }
  return Ok{};
}

// A key the lock format does not have is an error (a misspelt key would
// otherwise drop a pin or a whole toolkit without a word), with the nearest
// known key suggested.
Status check_keys(const std::string& file, const toml::table& t, const std::string& ctx,
                  std::initializer_list<std::string_view> known) {
  for (const auto& [k, v] : t)
    if (std::find(known.begin(), known.end(), k.str()) == known.end())
      return Error(where(file, v) + ": " + ctx + ": unknown key \"" + std::string(k.str()) + "\"" +
                   suggest::did_you_mean(k.str(), known));
  return Ok{};
}

Expected<LockedRpm> read_rpm(const std::string& file, const toml::table& t, const std::string& toolkit) {
  LockedRpm r;
  std::string ctx = "toolkit." + toolkit + ": rpm entry";
  if (auto st = check_keys(file, t, ctx, {"name", "evr", "arch", "location", "sha256", "size"}); !st)
    return st.error();
  for (auto [key, out] : {std::pair<const char*, std::string*>{"name", &r.name}, {"evr", &r.evr},
                          {"arch", &r.arch}, {"location", &r.location}, {"sha256", &r.sha256}}) {
    if (auto st = get_string(file, t, ctx, key, true, *out); !st) return st.error();
    if (out->empty()) return Error(where(file, t) + ": " + ctx + ": " + key + " is empty");
  }
  ctx = "toolkit." + toolkit + ": rpm " + r.name;
  if (!is_hex(r.sha256, 64))
    return Error(where(file, *t.get("sha256")) + ": " + ctx + ": sha256 is not 64 hex digits");
  for (char& c : r.sha256)
    if (c >= 'A' && c <= 'F') c = static_cast<char>(c - 'A' + 'a');
  const toml::node* size = t.get("size");
  if (!size) return Error(where(file, t) + ": " + ctx + " has no size");
  const auto* iv = size->as_integer();
  if (!iv || iv->get() < 0) return Error(where(file, *size) + ": " + ctx + ": size is not a non-negative integer");
  r.size = static_cast<uint64_t>(iv->get());
  if (r.location[0] == '/' || r.location.find("..") != std::string::npos ||
      r.location.find("://") != std::string::npos)
    return Error(where(file, *t.get("location")) + ": " + ctx + ": location '" + r.location +
                 "' is not a path inside the repository");
  return r;
}

Expected<LockedToolkit> read_toolkit(const std::string& file, const std::string& name, const toml::table& t) {
  LockedToolkit k;
  k.name = name;
  std::string ctx = "toolkit." + name;
  if (auto st = check_keys(file, t, ctx,
                           {"release", "repo", "key_url", "key_fingerprint", "requested", "external", "rpm"});
      !st)
    return st.error();
  if (auto st = get_string(file, t, ctx, "release", true, k.release); !st) return st.error();
  if (auto st = get_string(file, t, ctx, "repo", true, k.repo); !st) return st.error();
  if (auto st = get_string(file, t, ctx, "key_url", false, k.key_url); !st) return st.error();
  if (auto st = get_string(file, t, ctx, "key_fingerprint", false, k.key_fingerprint); !st) return st.error();
  if (!k.key_fingerprint.empty()) {
    if (!is_hex(k.key_fingerprint, 40))
      return Error(where(file, *t.get("key_fingerprint")) + ": " + ctx + ": key_fingerprint is not 40 hex digits");
    for (char& c : k.key_fingerprint)
      if (c >= 'a' && c <= 'f') c = static_cast<char>(c - 'a' + 'A');
  }
  if (auto st = get_list(file, t, ctx, "requested", k.requested); !st) return st.error();
  if (auto st = get_list(file, t, ctx, "external", k.external); !st) return st.error();
  if (const toml::node* rpms = t.get("rpm")) {
    const auto* arr = rpms->as_array();
    if (!arr) return Error(where(file, *rpms) + ": " + ctx + ": rpm must be an array of tables ([[" + ctx + ".rpm]])");
    for (const toml::node& e : *arr) {
      const auto* et = e.as_table();
      if (!et) return Error(where(file, e) + ": " + ctx + ": rpm entries must be tables");
      auto r = read_rpm(file, *et, name);
      if (!r) return r.error();
      k.rpms.push_back(std::move(*r));
    }
  }
  if (k.rpms.empty()) return Error(where(file, t) + ": " + ctx + " pins no RPMs (no [[" + ctx + ".rpm]] entries)");
  return k;
}

// A TOML basic string (TOML 1.0, "String"): quote, backslash and control
// characters escaped.
std::string quote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\f': out += "\\f"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20 || c == 0x7f) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04X", c);
          out += buf;
        } else {
          out.push_back(static_cast<char>(c));
        }
    }
  }
  return out + "\"";
}

std::string key(const std::string& k) { return bare_key(k) ? k : quote(k); }

std::string list(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  std::string out = "[";
  for (size_t i = 0; i < v.size(); ++i) out += (i ? ", " : "") + quote(v[i]);
  return out + "]";
}

}  // namespace

Expected<Lock> read_lock(const std::string& path) {
  auto text = read_whole_file(path, kMaxLockBytes);
  if (!text) return text.error();
  auto parsed = tomlsafe::parse(*text, path);
  if (!parsed) return parsed.error();
  const toml::table& root = *parsed;
  Lock lock;
  const toml::node* schema = root.get("schema");
  if (!schema) return Error(path + ":1: no schema key (expected schema = 1)");
  const auto* sv = schema->as_integer();
  if (!sv || sv->get() != 1)
    return Error(where(path, *schema) + ": unknown schema (this cuwheel reads schema = 1)");
  lock.schema = 1;
  if (auto st = check_keys(path, root, "lock", {"schema", "toolkit"}); !st) return st.error();
  if (const toml::node* tk = root.get("toolkit")) {
    const auto* t = tk->as_table();
    if (!t) return Error(where(path, *tk) + ": toolkit must be a table");
    for (const auto& [name, node] : *t) {
      const auto* nt = node.as_table();
      if (!nt) return Error(where(path, node) + ": toolkit." + std::string(name.str()) + " must be a table");
      auto k = read_toolkit(path, std::string(name.str()), *nt);
      if (!k) return k.error();
      lock.toolkits.push_back(std::move(*k));
    }
  }
  std::sort(lock.toolkits.begin(), lock.toolkits.end(),
            [](const LockedToolkit& a, const LockedToolkit& b) { return a.name < b.name; });
  return lock;
}

std::string format_lock(const Lock& lock) {
  std::string out;
  out += "# CUDA toolkit lock written by `cuwheel toolkit lock`; see docs/toolkit.md.\n";
  out += "# Every RPM is pinned by SHA-256 and size. Re-pin with the same command.\n";
  out += "schema = " + std::to_string(lock.schema) + "\n";
  std::vector<const LockedToolkit*> tks;
  for (const LockedToolkit& t : lock.toolkits) tks.push_back(&t);
  std::sort(tks.begin(), tks.end(), [](const LockedToolkit* a, const LockedToolkit* b) { return a->name < b->name; });
  for (const LockedToolkit* t : tks) {
    std::string k = "toolkit." + key(t->name);
    out += "\n[" + k + "]\n";
    out += "release = " + quote(t->release) + "\n";
    out += "repo = " + quote(t->repo) + "\n";
    out += "key_url = " + quote(t->key_url) + "\n";
    out += "key_fingerprint = " + quote(t->key_fingerprint) + "\n";
    out += "requested = " + list(t->requested) + "\n";
    out += "external = " + list(t->external) + "\n";
    std::vector<LockedRpm> rpms = t->rpms;
    std::sort(rpms.begin(), rpms.end(), [](const LockedRpm& a, const LockedRpm& b) {
      if (a.name != b.name) return a.name < b.name;
      if (a.arch != b.arch) return a.arch < b.arch;
      return compare_evr(parse_evr(a.evr), parse_evr(b.evr)) < 0;
    });
    for (const LockedRpm& r : rpms) {
      out += "\n[[" + k + ".rpm]]\n";
      out += "name = " + quote(r.name) + "\n";
      out += "evr = " + quote(r.evr) + "\n";
      out += "arch = " + quote(r.arch) + "\n";
      out += "location = " + quote(r.location) + "\n";
      out += "sha256 = " + quote(r.sha256) + "\n";
      out += "size = " + std::to_string(r.size) + "\n";
    }
  }
  return out;
}

Status write_lock(const std::string& path, const Lock& lock) { return write_file_atomic(path, format_lock(lock)); }

}  // namespace cuwheel::toolkit
