// Build identity: toolkit detection, canonical identity strings, stamps.
// The format facts are documented in include/cuwheel/release/identity.h.
#include "cuwheel/release/identity.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>

#include "cuwheel/base/bytes.h"
#include "cuwheel/base/fileio.h"
#include "cuwheel/base/process.h"

extern char** environ;

namespace cuwheel::identity {

namespace {

constexpr int kMaxMajor = 999;
constexpr size_t kMaxStampBytes = 4096;
constexpr size_t kMaxNvccOutput = 64 * 1024;

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_lower(char c) { return c >= 'a' && c <= 'z'; }
bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }

// Parses a run of decimal digits at s[pos]; advances pos. nullopt when there
// is no digit or the value exceeds `limit`.
std::optional<long> read_number(std::string_view s, size_t& pos, long limit) {
  size_t start = pos;
  long v = 0;
  while (pos < s.size() && is_digit(s[pos])) {
    v = v * 10 + (s[pos] - '0');
    if (v > limit) return std::nullopt;
    ++pos;
  }
  if (pos == start) return std::nullopt;
  return v;
}

// The first line of a command's output, escaped (printable()) and cut at
// 120 bytes, for a message.
std::string first_line(std::string_view text) {
  size_t nl = text.find('\n');
  std::string_view line = text.substr(0, nl == std::string_view::npos ? text.size() : nl);
  if (line.size() > 120) return printable(line.substr(0, 120)) + "...";
  return printable(line);
}

// All of `text` (a stamp), escaped, cut at 120 bytes: a newline shows as
// \x0a, so a two-line stamp is quoted as what it is.
std::string quoted_text(std::string_view text) {
  if (text.size() > 120) return printable(text.substr(0, 120)) + "...";
  return printable(text);
}

bool is_executable_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

bool is_regular_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

// Runs `nvcc --version` and returns its stdout and stderr together. The
// child and everything it started are killed after timeout_ms (and what it
// leaves behind when it exits); output beyond kMaxNvccOutput is dropped.
Expected<std::string> run_nvcc_version(const std::string& nvcc, int timeout_ms) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return Error(nvcc + ": pipe: " + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  // Its own process group: a wrapper's children are ended with it.
  auto spawned = spawn_in_new_group({nvcc, "--version"}, &actions);
  posix_spawn_file_actions_destroy(&actions);
  ::close(fds[1]);
  if (!spawned) {
    ::close(fds[0]);
    return spawned.error();
  }
  const pid_t pid = *spawned;
  std::string out;
  bool timed_out = false;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  char buf[4096];
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    struct pollfd p {fds[0], POLLIN, 0};
    int pr = ::poll(&p, 1, static_cast<int>(left.count()));
    if (pr < 0 && errno == EINTR) continue;
    if (pr == 0) {
      timed_out = true;
      break;
    }
    ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    if (out.size() < kMaxNvccOutput) out.append(buf, std::min(static_cast<size_t>(n), kMaxNvccOutput - out.size()));
  }
  ::close(fds[0]);
  const int status = timed_out ? end_group(pid) : wait_and_end_group(pid);
  if (timed_out) return Error(nvcc + " --version: no answer after " + std::to_string(timeout_ms) + " ms");
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::string how = WIFEXITED(status) ? "exited with status " + std::to_string(WEXITSTATUS(status))
                                        : "was killed by signal " + std::to_string(WTERMSIG(status));
    return Error(nvcc + " --version " + how + (out.empty() ? "" : ": " + first_line(out)));
  }
  return out;
}

}  // namespace

Expected<ToolkitVersion> read_nvcc_version(const std::string& nvcc, int timeout_ms) {
  auto out = run_nvcc_version(nvcc, timeout_ms);
  if (!out) return out.error();
  auto v = parse_nvcc_version(*out);
  if (!v) return v.error().context(nvcc + " --version");
  v->source = nvcc + " --version";
  return v;
}

Expected<ToolkitVersion> read_version_header(const std::string& path, std::string_view macro) {
  auto text = read_whole_file(path, size_t{16} << 20);
  if (!text) return text.error();
  auto v = parse_version_header(*text, macro);
  if (!v) return v.error().context(path);
  v->source = path;
  return v;
}

namespace {

Expected<ToolkitVersion> from_prefix(const std::string& prefix, const std::string& named_by, int timeout_ms) {
  std::string base = prefix;
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  std::string nvcc = base + "/bin/nvcc";
  if (is_executable_file(nvcc)) return read_nvcc_version(nvcc, timeout_ms);
  std::string cuda_h = base + "/include/cuda.h";
  if (is_regular_file(cuda_h)) return read_version_header(cuda_h, "CUDA_VERSION");
  std::string rt_h = base + "/include/cuda_runtime_api.h";
  if (is_regular_file(rt_h)) return read_version_header(rt_h, "CUDART_VERSION");
  return Error(named_by + " " + prefix + ": no CUDA toolkit there (looked for bin/nvcc, include/cuda.h, include/cuda_runtime_api.h)");
}

// Validates and normalizes one flag ("Debug" -> "debug", "SAN=asan" ->
// "san=asan"). Returns {name, value-or-empty}.
Expected<std::pair<std::string, std::optional<std::string>>> normalize_flag(std::string_view flag) {
  size_t eq = flag.find('=');
  std::string name(flag.substr(0, eq));
  for (char& c : name)
    if (is_upper(c)) c = static_cast<char>(c - 'A' + 'a');
  // The flag may come from a stamp: quoted escaped (printable()).
  auto bad = [&](const std::string& why) { return Error("flag '" + printable(flag) + "': " + why); };
  if (name.empty()) return bad("empty name");
  if (!is_lower(name[0])) return bad("a name starts with a letter a-z");
  for (char c : name)
    if (!is_lower(c) && !is_digit(c) && c != '_') return bad("a name has only a-z, 0-9 and '_'");
  if (name.size() > 2 && name.compare(0, 2, "cu") == 0 &&
      std::all_of(name.begin() + 2, name.end(), is_digit))
    return bad("'cu' followed by digits is reserved for the CUDA major");
  if (eq == std::string_view::npos) return std::make_pair(name, std::optional<std::string>());
  std::string value(flag.substr(eq + 1));
  if (value.empty()) return bad("empty value");
  for (char c : value)
    if (!is_lower(c) && !is_upper(c) && !is_digit(c) && c != '.' && c != '_')
      return bad("a value has only A-Z, a-z, 0-9, '.' and '_'");
  return std::make_pair(name, std::optional<std::string>(value));
}

std::string component_name(const std::string& c) { return c.substr(0, c.find('=')); }

}  // namespace

Expected<ToolkitVersion> parse_nvcc_version(std::string_view text) {
  static constexpr std::string_view kKey = "release ";
  for (size_t at = text.find(kKey); at != std::string_view::npos; at = text.find(kKey, at + 1)) {
    size_t pos = at + kKey.size();
    size_t major_at = pos;
    auto major = read_number(text, pos, kMaxMajor);
    if (!major || pos - major_at > 3 || pos >= text.size() || text[pos] != '.') continue;
    ++pos;
    auto minor = read_number(text, pos, 99);  // at most two digits: 99 is the limit
    if (!minor || *major < 1) continue;
    return ToolkitVersion{static_cast<int>(*major), static_cast<int>(*minor), "nvcc --version"};
  }
  return Error("no 'release M.N' in the nvcc banner (first line: '" + first_line(text) + "')");
}

Expected<ToolkitVersion> parse_version_header(std::string_view text, std::string_view name) {
  size_t line_start = 0;
  const std::string macro(name);
  while (line_start < text.size()) {
    size_t nl = text.find('\n', line_start);
    std::string_view line = text.substr(line_start, nl == std::string_view::npos ? std::string_view::npos : nl - line_start);
    line_start = nl == std::string_view::npos ? text.size() : nl + 1;
    size_t p = line.find_first_not_of(" \t");
    if (p == std::string_view::npos || line[p] != '#') continue;
    p = line.find_first_not_of(" \t", p + 1);
    if (p == std::string_view::npos || line.substr(p, 6) != "define") continue;
    p = line.find_first_not_of(" \t", p + 6);
    if (p == std::string_view::npos || line.substr(p, macro.size()) != macro) continue;
    size_t after = p + macro.size();
    if (after >= line.size() || (line[after] != ' ' && line[after] != '\t')) continue;  // CUDA_VERSION_X
    size_t v = line.find_first_not_of(" \t", after);
    size_t pos = v == std::string_view::npos ? line.size() : v;
    auto value = read_number(line, pos, 999999);
    if (!value) return Error("#define " + macro + ": value is not a decimal number");
    long major = *value / 1000, minor = (*value % 1000) / 10;
    if (major < 1 || *value % 10 != 0)
      return Error("#define " + macro + " " + std::to_string(*value) + ": not of the form major*1000 + minor*10");
    return ToolkitVersion{static_cast<int>(major), static_cast<int>(minor), ""};
  }
  return Error("no '#define " + macro + "' line");
}

Expected<ToolkitVersion> detect_toolkit(const ToolkitQuery& q) {
  if (!q.prefix.empty()) return from_prefix(q.prefix, "toolkit", q.nvcc_timeout_ms);
  if (!q.cuda_home.empty()) return from_prefix(q.cuda_home, "CUDA_HOME", q.nvcc_timeout_ms);
  if (!q.cuda_path.empty()) return from_prefix(q.cuda_path, "CUDA_PATH", q.nvcc_timeout_ms);
  std::string_view path = q.path_env;
  size_t start = 0;
  while (start <= path.size()) {
    size_t colon = path.find(':', start);
    std::string dir(path.substr(start, colon == std::string_view::npos ? std::string_view::npos : colon - start));
    if (dir.empty()) dir = ".";  // POSIX: an empty PATH entry is the current folder
    std::string nvcc = dir + "/nvcc";
    if (is_executable_file(nvcc)) {
      auto v = read_nvcc_version(nvcc, q.nvcc_timeout_ms);
      if (v) v->source = nvcc + " --version (PATH)";
      return v;
    }
    if (colon == std::string_view::npos) break;
    start = colon + 1;
  }
  return Error("no CUDA toolkit found: --toolkit, CUDA_HOME and CUDA_PATH are unset and no nvcc is on PATH "
               "(give --toolkit PREFIX or --cuda-major N)");
}

std::string Identity::str() const {
  std::string s = "cu" + std::to_string(cuda_major);
  for (const auto& c : components) s += "-" + c;
  return s;
}

Expected<Identity> make_identity(int cuda_major, const std::vector<std::string>& flags) {
  if (cuda_major < 1 || cuda_major > kMaxMajor)
    return Error("CUDA major " + std::to_string(cuda_major) + " is out of range 1.." + std::to_string(kMaxMajor));
  std::map<std::string, std::optional<std::string>> by_name;
  for (const auto& f : flags) {
    auto n = normalize_flag(f);
    if (!n) return n.error();
    auto [it, inserted] = by_name.emplace(n->first, n->second);
    if (!inserted && it->second != n->second) {
      auto show = [&](const std::optional<std::string>& v) { return v ? n->first + "=" + *v : n->first; };
      return Error("flag '" + n->first + "' given twice, as '" + show(it->second) + "' and '" + show(n->second) + "'");
    }
  }
  Identity id;
  id.cuda_major = cuda_major;
  for (const auto& [name, value] : by_name) id.components.push_back(value ? name + "=" + *value : name);
  std::sort(id.components.begin(), id.components.end());
  return id;
}

Expected<Identity> parse_identity(std::string_view text) {
  auto bad = [&](const std::string& why) { return Error("'" + quoted_text(text) + "' is not a build identity: " + why); };
  // What is wrong with the text as a whole first: a stamp is one line.
  if (size_t nl = text.find_first_of("\n\r"); nl != std::string_view::npos)
    return bad("it has more than one line (a line break at offset " + std::to_string(nl) +
               "; a stamp holds one identity on one line)");
  if (size_t nul = text.find('\0'); nul != std::string_view::npos)
    return bad("it holds a NUL byte at offset " + std::to_string(nul));
  if (text.size() < 3 || text.substr(0, 2) != "cu") return bad("it does not start with cu<major>");
  size_t pos = 2;
  if (text[pos] == '0') return bad("the CUDA major has a leading zero");
  auto major = read_number(text, pos, kMaxMajor);
  if (!major) return bad("no CUDA major (1.." + std::to_string(kMaxMajor) + ") after 'cu'");
  std::vector<std::string> parts;
  while (pos < text.size()) {
    if (text[pos] != '-') return bad("expected '-' at offset " + std::to_string(pos));
    size_t next = text.find('-', pos + 1);
    parts.emplace_back(text.substr(pos + 1, next == std::string_view::npos ? std::string_view::npos : next - pos - 1));
    pos = next == std::string_view::npos ? text.size() : next;
  }
  auto id = make_identity(static_cast<int>(*major), parts);
  if (!id) return bad(id.error().message());
  if (id->str() != text) return bad("components are not lowercase, sorted and unique (canonical: " + id->str() + ")");
  return id;
}

std::string keyed_dir(std::string_view root, const Identity& id) {
  std::string r(root);
  while (r.size() > 1 && r.back() == '/') r.pop_back();
  if (r.empty()) return id.str();
  if (r == "/") return "/" + id.str();
  return r + "/" + id.str();
}

std::vector<std::string> describe_changes(const Identity& recorded, const Identity& current) {
  std::vector<std::string> out;
  if (recorded.cuda_major != current.cuda_major)
    out.push_back("CUDA major " + std::to_string(recorded.cuda_major) + " -> " + std::to_string(current.cuda_major));
  std::map<std::string, std::string> before, after;
  for (const auto& c : recorded.components) before[component_name(c)] = c;
  for (const auto& c : current.components) after[component_name(c)] = c;
  for (const auto& [name, c] : before) {
    auto it = after.find(name);
    if (it == after.end()) {
      out.push_back("removed " + c);
    } else if (it->second != c) {
      auto value = [](const std::string& comp) {
        size_t eq = comp.find('=');
        return eq == std::string::npos ? std::string("(set)") : comp.substr(eq + 1);
      };
      out.push_back(name + ": " + value(c) + " -> " + value(it->second));
    }
  }
  for (const auto& [name, c] : after)
    if (!before.count(name)) out.push_back("added " + c);
  return out;
}

Expected<StampCheck> check_stamp(const std::string& path, const Identity& current) {
  StampCheck r;
  const std::string cur = current.str();
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 && errno == ENOENT) {
    r.state = StampCheck::State::kMissing;
    r.message = "no stamp at " + printable(path) + " (no completed build recorded), configuration is " + cur + ": rebuild";
    return r;
  }
  auto text = read_whole_file(path, kMaxStampBytes);
  if (!text) return text.error();
  // ASCII white space around the identity is ignored (space, tab, CR, LF:
  // an editor's final newline, a CRLF checkout, an indented echo).
  std::string_view t = *text;
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
  while (!t.empty() && space(t.front())) t.remove_prefix(1);
  while (!t.empty() && space(t.back())) t.remove_suffix(1);
  r.recorded = printable(t);
  auto recorded = parse_identity(t);
  if (!recorded) {
    r.state = StampCheck::State::kMalformed;
    // Every piece that quotes the stamp is escaped; printable() is
    // idempotent, so the message is escaped once more as a whole.
    r.message = printable(printable(path) + ": " + recorded.error().message() + "; configuration is " + cur + ": rebuild");
    return r;
  }
  if (*recorded == current) {
    r.state = StampCheck::State::kMatches;
    r.message = "stamp says " + cur + ", configuration is " + cur + ": up to date";
    return r;
  }
  r.state = StampCheck::State::kDiffers;
  r.changes = describe_changes(*recorded, current);
  r.message = "stamp says " + printable(t) + ", configuration is " + cur + ": rebuild";
  for (auto& c : r.changes) c = printable(c);
  return r;
}

Status write_stamp(const std::string& path, const Identity& current) {
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(parent, ec);
    if (ec) return Error(path + ": cannot create folder " + parent.string() + ": " + ec.message());
  }
  return write_output(path, current.str() + "\n");
}

std::vector<Diagnostic> stamp_diagnostics(const StampCheck& r, const std::string& stamp_path) {
  if (!r.rebuild()) return {};
  Diagnostic d;
  d.path = stamp_path;
  d.message = r.message;
  // The malformed-stamp message starts with the stamp's name, which the
  // diagnostic's path already gives.
  const std::string named = printable(stamp_path) + ": ";
  if (d.message.compare(0, named.size(), named) == 0) d.message.erase(0, named.size());
  for (size_t i = 0; i < r.changes.size(); ++i) d.message += (i ? "; " : " (") + r.changes[i];
  if (!r.changes.empty()) d.message += ")";
  switch (r.state) {
    case StampCheck::State::kDiffers: d.rule = "stale-build"; break;
    case StampCheck::State::kMissing: d.rule = "no-stamp"; break;
    default: d.rule = "malformed-stamp"; break;
  }
  d.hint = "rebuild from a clean build folder, then record it with `cuwheel identity stamp`";
  return {d};
}

}  // namespace cuwheel::identity
