// Build-matrix filtering. See include/cuwheel/release/matrix.h and docs/matrix.md.
#include "cuwheel/release/matrix.h"

#include <fnmatch.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <set>
#include <tuple>

#include "cuwheel/base/json_text.h"
#include "cuwheel/base/bytes.h"
#include "cuwheel/base/fileio.h"

namespace fs = std::filesystem;

namespace cuwheel::matrix {

namespace {

constexpr std::string_view kRoles[] = {"desired_cuda", "gpu_arch_type", "gpu_arch_version", "python_version",
                                       "container_image"};

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool ends_with(std::string_view s, std::string_view suf) {
  return s.size() >= suf.size() && s.substr(s.size() - suf.size()) == suf;
}

// A string field of a row; "" when absent or not a string.
std::string field(const Row& row, const std::string& name) {
  auto it = row.find(name);
  if (it == row.end() || !it->is_string()) return "";
  return it->get<std::string>();
}

bool has_nonempty(const Row& row, const std::string& name) {
  auto it = row.find(name);
  if (it == row.end() || it->is_null()) return false;
  if (it->is_string()) return !it->get<std::string>().empty();
  return true;
}

bool glob(const std::string& pattern, const std::string& value) {
  return fnmatch(pattern.c_str(), value.c_str(), 0) == 0;
}

// "row 3 (manywheel-py3_9-cuda12_6)".
std::string row_label(const Row& row, size_t i) {
  std::string name = field(row, "build_name");
  return "row " + std::to_string(i) + (name.empty() ? "" : " (" + name + ")");
}

std::string join(const std::vector<std::string>& v, std::string_view sep) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : std::string(sep)) + s;
  return out;
}

// (major, minor, free-threaded) of "3.13t"; unparsable sorts first.
std::tuple<long, long, int> python_key(std::string_view p) {
  size_t dot = p.find('.');
  if (dot == std::string_view::npos) return {-1, -1, 0};
  std::string_view maj = p.substr(0, dot), rest = p.substr(dot + 1);
  int ft = 0;
  if (!rest.empty() && rest.back() == 't') ft = 1, rest.remove_suffix(1);
  if (!all_digits(maj) || !all_digits(rest) || maj.size() > 6 || rest.size() > 6) return {-1, -1, 0};
  return {std::stol(std::string(maj)), std::stol(std::string(rest)), ft};
}

}  // namespace

Status FieldNames::set(std::string_view role, std::string name) {
  if (role == "desired_cuda") desired_cuda = std::move(name);
  else if (role == "gpu_arch_type") gpu_arch_type = std::move(name);
  else if (role == "gpu_arch_version") gpu_arch_version = std::move(name);
  else if (role == "python_version") python_version = std::move(name);
  else if (role == "container_image") container_image = std::move(name);
  else {
    std::string roles;
    for (auto r : kRoles) roles += (roles.empty() ? "" : ", ") + std::string(r);
    return Error("unknown field \"" + std::string(role) + "\" (the fields are " + roles + ")");
  }
  return Ok{};
}

Status FieldNames::set(std::string_view assignment) {
  size_t eq = assignment.find('=');
  if (eq == std::string_view::npos || eq == 0 || eq + 1 == assignment.size())
    return Error("\"" + std::string(assignment) + "\" is not FIELD=NAME, e.g. desired_cuda=cuda_version");
  return set(assignment.substr(0, eq), std::string(assignment.substr(eq + 1)));
}

Build classify_build(std::string_view v) {
  Build b;
  if (v.size() >= 5 && v.size() <= 6 && v.substr(0, 2) == "cu" && all_digits(v.substr(2))) {
    b.kind = Build::Kind::kCuda;
    b.train = std::string(v);
    std::string d(v.substr(2));
    b.major = static_cast<unsigned>(std::stoul(d.substr(0, d.size() - 1)));
    b.minor = static_cast<unsigned>(d.back() - '0');
    return b;
  }
  if (v == "cpu" || (v.size() > 4 && v.substr(0, 4) == "cpu-")) {
    b.kind = Build::Kind::kCpu;
    return b;
  }
  if (v.size() > 4 && v.substr(0, 4) == "rocm") {
    std::string_view r = v.substr(4);
    size_t dot = r.find('.');
    if (dot != std::string_view::npos && all_digits(r.substr(0, dot)) &&
        (all_digits(r.substr(dot + 1)) || (r.find('.', dot + 1) != std::string_view::npos))) {
      b.kind = Build::Kind::kRocm;
      return b;
    }
  }
  if (v == "xpu") b.kind = Build::Kind::kXpu;
  return b;
}

std::string train_version(const Build& b) { return std::to_string(b.major) + "." + std::to_string(b.minor); }

std::string Combination::to_string() const {
  std::string s = arch.empty() ? "any arch" : arch;
  s += " " + (train.empty() ? std::string("any train") : train);
  s += " python " + (python.empty() ? std::string("any") : python);
  return s;
}

bool python_less(std::string_view a, std::string_view b) { return python_key(a) < python_key(b); }

const std::vector<std::string_view>& guard_names() {
  static const std::vector<std::string_view> k = {
      "missing-combination", "empty-matrix",     "missing-cuda-version", "missing-python",
      "python-not-allowed",  "unknown-build",    "cuda-version-mismatch", "generator-spelling",
      "toolkit-mismatch",    "representative-missing"};
  return k;
}

nlohmann::ordered_json Result::matrix() const {
  nlohmann::ordered_json m;
  m["include"] = nlohmann::ordered_json::array();
  for (const auto& r : include) m["include"].push_back(r);
  return m;
}

namespace {

// Reports a guard that fired: on row `row` (0-based), or on the whole
// matrix when it is -1.
void guard(Result& res, const char* rule, std::string message, int row) {
  Finding f;
  f.rule = rule;
  f.severity = Severity::error;
  f.message = std::move(message);
  if (row >= 0) {
    f.index = static_cast<uint64_t>(row);
    f.location = "row " + std::to_string(row);
  }
  res.findings.push_back(std::move(f));
}

// A SAX pass over generator output before the DOM parse. It finds a parse
// error (with its byte offset) and a key repeated within one object: RFC
// 8259 section 4 says the names in an object SHOULD be unique and leaves a
// repeated one to the reader (nlohmann-json and Python's json module keep
// the last value, other readers the first or refuse), so a generator that
// writes "desired_cuda" twice has a bug whose outcome depends on the reader.
class RowChecker : public nlohmann::json_sax<Row> {
 public:
  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t) override { return value(); }
  bool number_float(number_float_t, const string_t&) override { return value(); }
  bool string(string_t&) override { return value(); }
  bool binary(binary_t&) override { return value(); }
  bool start_object(std::size_t) override {
    value();
    stack_.push_back(Frame{true, {}, {}, 0});
    return true;
  }
  bool key(string_t& k) override {
    Frame& f = stack_.back();
    if (!f.keys.insert(k).second && !duplicate_) {
      // Kept until the end: whether the top level is one row or the
      // {"include": [...]} wrapper is known only once it is read whole.
      duplicate_ = k;
      for (const Frame& g : stack_) dup_path_.push_back(g.object ? PathStep{g.key, 0, false} : PathStep{{}, g.count - 1, true});
      dup_path_.pop_back();  // the object holding the key itself
    }
    f.key = k;
    return true;
  }
  bool end_object() override {
    if (stack_.size() == 1) top_has_include_ = stack_[0].keys.count("include") > 0;
    stack_.pop_back();
    return true;
  }
  bool start_array(std::size_t) override {
    value();
    stack_.push_back(Frame{false, {}, {}, 0});
    return true;
  }
  bool end_array() override {
    stack_.pop_back();
    return true;
  }
  bool parse_error(std::size_t pos, const std::string&, const nlohmann::detail::exception& ex) override {
    parse_error_ = "not JSON (byte " + std::to_string(pos) + ": " + ex.what() + ")";
    return false;
  }

  /// "" when the text is JSON without a repeated key.
  std::string error() const {
    if (!parse_error_.empty()) return parse_error_;
    if (!duplicate_) return "";
    // Where the row starts in the path: [N] for a list, include [N] for the
    // wrapper, nothing for one row object.
    std::string where;
    size_t rest = 0;
    if (!dup_path_.empty() && dup_path_[0].index) {
      where = "row " + std::to_string(dup_path_[0].n);
      rest = 1;
    } else if (dup_path_.size() >= 2 && dup_path_[0].key == "include" && dup_path_[1].index && top_has_include_) {
      where = "row " + std::to_string(dup_path_[1].n);
      rest = 2;
    } else if (!top_has_include_) {
      where = "the row";
    } else {
      where = "the top level";
    }
    std::string inside;
    for (size_t i = rest; i < dup_path_.size(); ++i)
      inside += dup_path_[i].index ? "[" + std::to_string(dup_path_[i].n) + "]" : (inside.empty() ? "" : ".") + dup_path_[i].key;
    return where + ": duplicate key \"" + *duplicate_ + "\"" + (inside.empty() ? "" : " in " + inside) +
           " (a generator bug: JSON readers disagree on which value wins)";
  }

 private:
  struct Frame {
    bool object;
    std::set<std::string> keys;  // object: the keys seen so far
    std::string key;             // object: the key of the value being read
    size_t count;                // array: values started so far
  };
  struct PathStep {
    std::string key;
    size_t n;
    bool index;
  };
  std::vector<Frame> stack_;
  std::optional<std::string> duplicate_;
  std::vector<PathStep> dup_path_;
  bool top_has_include_ = false;
  std::string parse_error_;

  bool value() {
    if (!stack_.empty() && !stack_.back().object) ++stack_.back().count;
    return true;
  }
};

}  // namespace

Expected<std::vector<Row>> parse_rows(std::string_view text, const std::string& name, bool* single_row) {
  if (single_row) *single_row = false;
  if (auto at = json_too_deep(text, kMaxDepth))
    return Error(printable(name) + ": nested deeper than " + std::to_string(kMaxDepth) + " levels at byte " +
                 std::to_string(*at) + " (a generator row is a flat object)");
  RowChecker check;
  Row::sax_parse(text.begin(), text.end(), &check, nlohmann::detail::input_format_t::json, true, false);
  // The parser's text quotes the input ("last read: ..."): escaped as a whole.
  if (std::string e = check.error(); !e.empty()) return Error(printable(name + ": " + e));
  auto j = Row::parse(text.begin(), text.end(), nullptr, false);
  if (j.is_discarded()) return Error(printable(name) + ": not JSON");  // the SAX pass has already said where
  const Row* list = nullptr;
  std::vector<Row> rows;
  if (j.is_array()) {
    list = &j;
  } else if (j.is_object()) {
    auto it = j.find("include");
    if (it != j.end()) {
      if (!it->is_array()) return Error(printable(name) + ": \"include\" is not a list of rows");
      list = &*it;
    } else {
      rows.push_back(j);  // one row (a build job's own matrix entry)
      if (single_row) *single_row = true;
      return rows;
    }
  } else {
    return Error(printable(name) + ": expected a list of rows, {\"include\": [...]} or one row object");
  }
  for (size_t i = 0; i < list->size(); ++i) {
    if (!(*list)[i].is_object()) return Error(printable(name) + ": row " + std::to_string(i) + " is not an object");
    rows.push_back((*list)[i]);
  }
  return rows;
}

Expected<ToolkitVersion> detect_toolkit(const std::string& path, int nvcc_timeout_ms) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    fs::path h = fs::path(path) / "include" / "cuda.h";
    if (fs::is_regular_file(h, ec)) return identity::read_version_header(h.string(), "CUDA_VERSION");
    fs::path nvcc = fs::path(path) / "bin" / "nvcc";
    if (fs::is_regular_file(nvcc, ec) && access(nvcc.c_str(), X_OK) == 0)
      return identity::read_nvcc_version(nvcc.string(), nvcc_timeout_ms);
    return Error(printable(path) + ": no include/cuda.h or bin/nvcc: not a CUDA toolkit folder");
  }
  if (!fs::exists(path, ec)) return Error(printable(path) + ": no such file or folder");
  if (fs::path(path).extension() == ".h") return identity::read_version_header(path, "CUDA_VERSION");
  if (fs::is_regular_file(path, ec) && access(path.c_str(), X_OK) == 0)
    return identity::read_nvcc_version(path, nvcc_timeout_ms);
  return Error(printable(path) + ": not a toolkit folder, a cuda.h or an nvcc executable");
}

std::string row_arch(const Row& row, const Policy& policy) {
  for (const auto& k : policy.empty) {
    if (k.match.empty()) continue;
    bool all = true;
    for (const auto& [f, pat] : k.match) all = all && glob(pat, field(row, f));
    if (all) return k.arch;
  }
  const FieldNames& f = policy.fields;
  std::string type = field(row, f.gpu_arch_type), build = field(row, f.desired_cuda),
              image = field(row, f.container_image);
  for (std::string_view a : {"aarch64", "s390x", "ppc64le"})
    if (ends_with(type, "-" + std::string(a)) || ends_with(build, "-" + std::string(a)) ||
        image.find(a) != std::string::npos)
      return std::string(a);
  return "x86_64";
}

Result filter(const std::vector<Row>& rows, const Policy& policy, const Options& options) {
  Result res;
  res.rows_in = rows.size();
  const FieldNames& f = policy.fields;
  auto find_trains = [&](const std::string& arch) -> const std::vector<std::string>* {
    for (const auto& [a, t] : policy.trains)
      if (a == arch) return &t;
    return nullptr;
  };
  auto find_empty = [&](const std::string& arch) -> const EmptyKind* {
    for (const auto& k : policy.empty)
      if (k.arch == arch) return &k;
    return nullptr;
  };
  auto allowed_python = [&](const std::string& py) {
    return std::find(policy.python.begin(), policy.python.end(), py) != policy.python.end();
  };
  auto excluded_python = [&](const std::string& py) -> const ExcludedPython* {
    for (const auto& e : policy.exclude_python)
      if (glob(e.python, py)) return &e;
    return nullptr;
  };

  // 1. The generator's inputs: it accepts "enable" and "disable" only and
  // reads anything else as disabled, so "enabled" silently empties a matrix.
  auto generator = policy.generator;
  generator.insert(generator.end(), options.generator.begin(), options.generator.end());
  for (const auto& [k, v] : generator)
    if (v != "enable" && v != "disable")
      guard(res, "generator-spelling",
                              "generator input " + k + " = \"" + v +
                                  "\": the generator accepts only \"enable\" or \"disable\" and reads anything else "
                                  "as disabled",
                              -1);

  // 2. Row by row.
  std::set<std::tuple<std::string, std::string, std::string>> offered;
  std::vector<size_t> kept;
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& row = rows[i];
    std::string label = row_label(row, i);
    std::string arch = row_arch(row, policy);
    std::string cuda = field(row, f.desired_cuda), py = field(row, f.python_version);
    Build b = classify_build(cuda);
    if (b.kind == Build::Kind::kCuda) offered.insert({arch, b.train, py});
    auto drop = [&](std::string reason) { res.dropped.push_back({static_cast<int>(i), field(row, "build_name"), std::move(reason)}); };

    bool bad = false;
    if (!has_nonempty(row, f.desired_cuda)) {
      guard(res, "missing-cuda-version", label + ": no " + f.desired_cuda + " (the CUDA train, or cpu)",
                              static_cast<int>(i));
      bad = true;
    } else if (!row[f.desired_cuda].is_string()) {
      guard(res, "unknown-build", label + ": " + f.desired_cuda + " is not a string", static_cast<int>(i));
      bad = true;
    } else if (b.kind == Build::Kind::kUnknown) {
      guard(res, "unknown-build",
                              label + ": " + f.desired_cuda + " \"" + cuda +
                                  "\" names no build: expected cuNNN (a CUDA train), cpu, cpu-<arch>, rocmX.Y or xpu",
                              static_cast<int>(i));
      bad = true;
    } else if (b.kind == Build::Kind::kCuda) {
      if (!has_nonempty(row, f.gpu_arch_version)) {
        if (row.contains(f.gpu_arch_version) || field(row, f.gpu_arch_type).rfind("cuda", 0) == 0) {
          guard(res, "missing-cuda-version",
                                  label + ": " + f.desired_cuda + " is " + cuda + " but " + f.gpu_arch_version +
                                      " is empty",
                                  static_cast<int>(i));
          bad = true;
        }
      } else if (field(row, f.gpu_arch_version) != train_version(b)) {
        guard(res, "cuda-version-mismatch",
                                label + ": " + f.desired_cuda + " is " + cuda + " (CUDA " + train_version(b) +
                                    ") but " + f.gpu_arch_version + " is \"" + field(row, f.gpu_arch_version) + "\"",
                                static_cast<int>(i));
        bad = true;
      }
    }
    if (row.contains(f.python_version) && !row[f.python_version].is_null() && !row[f.python_version].is_string()) {
      // 3.12 as a JSON number would also turn 3.10 into 3.1: say so.
      guard(res, "missing-python",
                              label + ": " + f.python_version + " is not a string (write \"3.12\", not 3.12)",
                              static_cast<int>(i));
      bad = true;
    } else if (!has_nonempty(row, f.python_version)) {
      guard(res, "missing-python", label + ": no " + f.python_version, static_cast<int>(i));
      bad = true;
    }
    if (bad) continue;

    if (options.arch && arch != *options.arch) {
      drop("architecture " + arch + " not requested");
      continue;
    }
    if (const EmptyKind* e = find_empty(arch)) {
      drop(arch + " is deliberately empty: " + e->reason);
      continue;
    }
    if (b.kind == Build::Kind::kCpu) {
      if (!policy.cpu) {
        drop("CPU build (the policy builds CUDA rows; set cpu = true to keep CPU rows)");
        continue;
      }
    } else if (b.kind == Build::Kind::kRocm || b.kind == Build::Kind::kXpu) {
      drop(std::string(b.kind == Build::Kind::kRocm ? "ROCm" : "XPU") + " build " + cuda + " (not a CUDA train)");
      continue;
    } else {
      const auto* trains = find_trains(arch);
      if (!trains) {
        drop("no trains are built for " + arch);
        continue;
      }
      if (std::find(trains->begin(), trains->end(), b.train) == trains->end()) {
        drop("train " + b.train + " is not built for " + arch + " (built: " + join(*trains, ", ") + ")");
        continue;
      }
    }
    if (const ExcludedPython* e = excluded_python(py)) {
      drop("python " + py + " excluded: " + e->reason);
      continue;
    }
    if (!allowed_python(py)) {
      guard(res, "python-not-allowed",
                              label + ": python " + py + " is not in the allowlist (" + join(policy.python, ", ") +
                                  ") and not excluded with a reason",
                              static_cast<int>(i));
      continue;
    }
    if (options.toolkit && b.kind == Build::Kind::kCuda && static_cast<unsigned>(options.toolkit->major) != b.major) {
      guard(res, "toolkit-mismatch",
                              label + ": builds " + b.train + " (CUDA " + std::to_string(b.major) + ") but the toolkit " +
                                  (options.toolkit->source.empty() ? "" : "at " + options.toolkit->source + " ") +
                                  "is CUDA " + std::to_string(options.toolkit->major) + "." +
                                  std::to_string(options.toolkit->minor),
                              static_cast<int>(i));
      continue;
    }
    kept.push_back(i);
  }

  // 3. Every advertised combination must still be offered by the generator.
  std::vector<Combination> expect;
  if (policy.expect) {
    expect = *policy.expect;
  } else {
    for (const auto& [arch, trains] : policy.trains)
      for (const auto& t : trains)
        for (const auto& py : policy.python)
          if (!excluded_python(py)) expect.push_back({arch, t, py});
  }
  // One finding per (arch, train), naming the Pythons that are gone.
  std::vector<std::pair<std::pair<std::string, std::string>, std::vector<std::string>>> missing;
  for (const auto& c : expect) {
    if (!options.check_offered) break;
    if (options.arch && c.arch != *options.arch) continue;
    if (offered.count({c.arch, c.train, c.python})) continue;
    auto it = std::find_if(missing.begin(), missing.end(),
                           [&](const auto& m) { return m.first == std::pair{c.arch, c.train}; });
    if (it == missing.end()) missing.push_back({{c.arch, c.train}, {c.python}});
    else it->second.push_back(c.python);
  }
  for (const auto& [at, pys] : missing)
    guard(res, "missing-combination",
                            "the generator no longer offers " + at.first + " " + at.second + " for python " +
                                join(pys, ", ") + ", which the policy advertises (a missing row publishes fewer wheels "
                                "under a green check)",
                            -1);

  // 4. Pull-request mode: one representative row.
  if (options.pr && !kept.empty()) {
    std::optional<size_t> pick;
    if (policy.representative) {
      const Combination& r = *policy.representative;
      for (size_t i : kept) {
        const Row& row = rows[i];
        if ((r.arch.empty() || row_arch(row, policy) == r.arch) &&
            (r.train.empty() || field(row, f.desired_cuda) == r.train) &&
            (r.python.empty() || field(row, f.python_version) == r.python)) {
          pick = i;
          break;
        }
      }
      if (!pick)
        guard(res, "representative-missing",
                                "no kept row matches the representative " + r.to_string(), -1);
    } else {
      // Newest train, then newest Python; x86_64 before other architectures.
      auto key = [&](size_t i) {
        Build b = classify_build(field(rows[i], f.desired_cuda));
        return std::make_tuple(row_arch(rows[i], policy) == "x86_64", b.major, b.minor,
                               python_key(field(rows[i], f.python_version)));
      };
      pick = kept.front();
      for (size_t i : kept)
        if (key(*pick) < key(i)) pick = i;
    }
    for (size_t i : kept)
      if (!pick || i != *pick)
        res.dropped.push_back({static_cast<int>(i), field(rows[i], "build_name"),
                               "pull-request mode: not the representative row"});
    kept.clear();
    if (pick) kept.push_back(*pick);
  }
  for (size_t i : kept) res.include.push_back(rows[i]);
  std::stable_sort(res.dropped.begin(), res.dropped.end(), [](const Dropped& a, const Dropped& b) { return a.row < b.row; });

  // Every row is kept, dropped, or failed a guard.
  std::set<uint64_t> failed;
  for (const auto& fd : res.findings)
    if (fd.index) failed.insert(*fd.index);
  res.rows_failed = failed.size();

  // 5. An empty matrix is a failure: no build job reads as a green check.
  if (res.include.empty()) {
    std::string msg;
    if (options.arch)
      if (const EmptyKind* e = find_empty(*options.arch))
        msg = *options.arch + " rows are deliberately empty: " + e->reason;
    if (msg.empty()) {
      msg = "no row is left to build (" + std::to_string(rows.size()) + " in, " + std::to_string(res.dropped.size()) +
            " dropped";
      if (res.rows_failed) msg += ", " + std::to_string(res.rows_failed) + " failed a guard";
      if (options.arch) msg += ", architecture " + *options.arch + " requested";
      msg += "): a workflow with no build job reads as a green check for a build that never happened";
    }
    guard(res, "empty-matrix", msg, -1);
  }
  // The messages quote row values, field names, policy entries and paths:
  // escaped here, once, so that no caller can print them raw. printable()
  // leaves the messages' own (ASCII) text as it is.
  for (auto& fd : res.findings) fd.message = printable(fd.message);
  for (auto& d : res.dropped) d.reason = printable(d.reason);
  return res;
}

}  // namespace cuwheel::matrix
