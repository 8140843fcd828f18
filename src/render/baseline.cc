// Finding fingerprints and the check baseline. See
// include/cuwheel/render/baseline.h.
#include "cuwheel/render/baseline.h"

#include <cctype>
#include <filesystem>
#include <set>

#include <nlohmann/json.hpp>

#include "cuwheel/base/bytes.h"
#include "cuwheel/base/digest.h"
#include "cuwheel/base/json_text.h"
#include "cuwheel/wheel/metadata.h"
#include "cuwheel/wheel/pep508.h"

namespace cuwheel::check {

namespace {

using json = nlohmann::ordered_json;

bool digit(char c) { return c >= '0' && c <= '9'; }

// Every number or version as one '#': digits with dotted parts (12, 12.8,
// 1.0.0), then PEP 440's pre-, post- and dev-release parts when they carry
// their number (rc1, .post2, -dev3, a1, b2, c1), then a local part
// (+cu128). So 1.0.0, 2.0, 1.0.0rc1 and 10.4.1.post2+cu128 read alike,
// while sm_90a stays sm_#a (a letter without a number is not a release part).
std::string without_numbers(std::string_view s) {
  static const char* const kParts[] = {"alpha", "beta", "preview", "pre", "post", "rev", "dev", "rc", "a", "b", "c", "r"};
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    if (!digit(s[i])) {
      out += s[i++];
      continue;
    }
    while (i < s.size() && digit(s[i])) ++i;
    while (i + 1 < s.size() && s[i] == '.' && digit(s[i + 1])) {
      ++i;
      while (i < s.size() && digit(s[i])) ++i;
    }
    for (bool more = true; more;) {  // release parts: [._-]?NAME DIGITS
      more = false;
      size_t j = i;
      if (j < s.size() && (s[j] == '.' || s[j] == '_' || s[j] == '-')) ++j;
      for (const char* part : kParts) {
        const size_t n = std::char_traits<char>::length(part);
        if (s.substr(j, n) == part && j + n < s.size() && digit(s[j + n])) {
          i = j + n;
          while (i < s.size() && digit(s[i])) ++i;
          more = true;
          break;
        }
      }
    }
    if (i + 1 < s.size() && s[i] == '+' && std::isalnum(static_cast<unsigned char>(s[i + 1]))) {
      ++i;  // local version: +[a-z0-9.]+ (PEP 440), not ending on a dot
      while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) ||
                              (s[i] == '.' && i + 1 < s.size() && std::isalnum(static_cast<unsigned char>(s[i + 1])))))
        ++i;
    }
    out += '#';
  }
  return out;
}

// "pkg-1.2.dist-info/METADATA" -> "pkg.dist-info/METADATA"; the same for
// "pkg-1.2.data/": the version is what changes from build to build.
std::string member_without_version(const std::string& member) {
  for (const char* suffix : {".dist-info", ".data"}) {
    const size_t end = member.find(suffix);
    if (end == std::string::npos) continue;
    const size_t after = end + std::char_traits<char>::length(suffix);
    if (after != member.size() && member[after] != '/') continue;
    const size_t start = member.rfind('/', end) == std::string::npos ? 0 : member.rfind('/', end) + 1;
    const size_t dash = member.find('-', start);
    if (dash == std::string::npos || dash > end) continue;
    return member.substr(0, dash) + member.substr(end);
  }
  return member;
}

bool is_hex32(const std::string& s) {
  if (s.size() != 32) return false;
  for (char c : s)
    if (!std::isxdigit(static_cast<unsigned char>(c)) || std::isupper(static_cast<unsigned char>(c))) return false;
  return true;
}

}  // namespace

std::string finding_distribution(const std::string& input_path) {
  const std::string file = std::filesystem::path(input_path).filename().string();
  if (auto w = WheelFilename::parse(file)) return normalize_name(w->distribution);
  return file;
}

namespace {

// `text` with the wheel's version (from its file name) taken out wherever
// it follows its distribution's name (`pkg-2.0.dist-info`, `pkg 2.0`), then
// every number or version as '#' (without_numbers): versions of another
// form (1.0.0 -> 2.0, 1.0.0rc1) then read alike wherever they are quoted.
std::string without_version(std::string_view text, const std::string& input_path) {
  std::string out(text);
  const std::string file = std::filesystem::path(input_path).filename().string();
  if (auto w = WheelFilename::parse(file); w && !w->version.empty()) {
    for (size_t at = out.find(w->version); at != std::string::npos; at = out.find(w->version, at)) {
      const bool after_name = at > 0 && (out[at - 1] == '-' || out[at - 1] == ' ' || out[at - 1] == '=');
      const size_t end = at + w->version.size();
      const bool whole = end == out.size() || !(std::isalnum(static_cast<unsigned char>(out[end])) || out[end] == '+');
      if (after_name && whole) {
        out.replace(at, w->version.size(), "V");
        at += 1;
      } else {
        at = end;
      }
    }
  }
  return without_numbers(out);
}

}  // namespace

std::string fingerprint(const Finding& f) {
  std::string key = f.rule;
  for (const std::string& part : {finding_distribution(f.path), member_without_version(f.member),
                                  without_version(f.location, f.path), without_version(f.message, f.path)}) {
    key += '\0';
    key += part;
  }
  const auto d = sha256(ByteView(reinterpret_cast<const uint8_t*>(key.data()), key.size()));
  static const char* kHex = "0123456789abcdef";
  std::string out;
  for (size_t i = 0; i < 16; ++i) {
    out += kHex[d[i] >> 4];
    out += kHex[d[i] & 15];
  }
  return out;
}

std::string render_baseline(const std::vector<Finding>& findings) {
  json list = json::array();
  for (const auto& f : findings)
    list.push_back(json{{"fingerprint", fingerprint(f)},
                        {"rule", f.rule},
                        {"distribution", finding_distribution(f.path)},
                        {"member", f.member},
                        {"message", f.message}});
  json doc{{"schema", 1}, {"tool", std::string("cuwheel ") + CUWHEEL_VERSION}, {"findings", list}};
  return doc.dump(2, ' ', false, json::error_handler_t::replace) + "\n";
}

namespace {

// A SAX pass that finds the first key written twice in one object, for the
// message (nlohmann keeps the last value of a repeated key; a baseline
// written by cuwheel has none).
class DuplicateKeys : public nlohmann::json_sax<json> {
 public:
  std::string duplicate;
  bool null() override { return true; }
  bool boolean(bool) override { return true; }
  bool number_integer(number_integer_t) override { return true; }
  bool number_unsigned(number_unsigned_t) override { return true; }
  bool number_float(number_float_t, const string_t&) override { return true; }
  bool string(string_t&) override { return true; }
  bool binary(binary_t&) override { return true; }
  bool start_object(std::size_t) override {
    keys_.emplace_back();
    return true;
  }
  bool key(string_t& k) override {
    if (!keys_.empty() && !keys_.back().insert(k).second) {
      duplicate = k;
      return false;
    }
    return true;
  }
  bool end_object() override {
    if (!keys_.empty()) keys_.pop_back();
    return true;
  }
  bool start_array(std::size_t) override { return true; }
  bool end_array() override { return true; }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override { return false; }

 private:
  std::vector<std::set<std::string>> keys_;
};

// A baseline is a list of flat objects: three levels deep.
constexpr size_t kMaxBaselineDepth = 16;

}  // namespace

Expected<Baseline> parse_baseline(std::string_view text, const std::string& where) {
  if (auto at = json_too_deep(text, kMaxBaselineDepth))
    return Error(printable(where) + ": nested deeper than " + std::to_string(kMaxBaselineDepth) + " levels at byte " +
                 std::to_string(*at) + " (a baseline is a list of flat objects)");
  DuplicateKeys dup;
  json::sax_parse(text.begin(), text.end(), &dup, nlohmann::detail::input_format_t::json, false);
  if (!dup.duplicate.empty())
    return Error(printable(where) + ": the key \"" + printable(dup.duplicate) + "\" is written twice in one object");
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) return Error(printable(where) + ": not a JSON object (a baseline is written by `cuwheel check --write-baseline FILE`)");
  if (!doc.contains("schema") || !doc["schema"].is_number_integer() || doc["schema"].get<int64_t>() != 1)
    return Error(printable(where) + ": \"schema\" must be 1");
  if (!doc.contains("findings") || !doc["findings"].is_array()) return Error(printable(where) + ": no \"findings\" array");
  Baseline b;
  size_t i = 0;
  for (const auto& e : doc["findings"]) {
    if (!e.is_object() || !e.contains("fingerprint") || !e["fingerprint"].is_string() ||
        !is_hex32(e["fingerprint"].get<std::string>()))
      return Error(printable(where) + ": findings[" + std::to_string(i) + "] has no \"fingerprint\" of 32 lowercase hex digits");
    ++b[e["fingerprint"].get<std::string>()];
    ++i;
  }
  return b;
}

size_t apply_baseline(std::vector<Finding>& findings, Baseline baseline) {
  size_t removed = 0;
  std::vector<Finding> kept;
  kept.reserve(findings.size());
  for (auto& f : findings) {
    auto it = baseline.find(fingerprint(f));
    if (it != baseline.end() && it->second > 0) {
      --it->second;
      ++removed;
      continue;
    }
    kept.push_back(std::move(f));
  }
  findings = std::move(kept);
  return removed;
}

}  // namespace cuwheel::check
