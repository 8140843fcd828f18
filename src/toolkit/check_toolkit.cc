// `toolkit check`: the before-build check of a CUDA_HOME tree
// (cuwheel/toolkit/fetch.h).
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <regex>
#include <thread>

#include "cuwheel/base/fileio.h"
#include "cuwheel/base/process.h"
#include "cuwheel/toolkit/fetch.h"

extern char** environ;

namespace cuwheel::toolkit {

namespace fs = std::filesystem;

namespace {

// A kernel, a launch and the runtime calls a plugin build makes, so the
// host compiler, the device compiler and the static runtime all take part.
constexpr const char* kKernel = R"(#include <cstdio>
#include <cuda_runtime.h>

__global__ void add_one(int* v, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) v[i] += 1;
}

int main() {
  int* d = nullptr;
  if (cudaMalloc(&d, 4 * sizeof(int)) != cudaSuccess) return 1;
  add_one<<<1, 4>>>(d, 4);
  cudaError_t err = cudaDeviceSynchronize();
  cudaFree(d);
  std::printf("%s\n", cudaGetErrorString(err));
  return 0;
}
)";

struct RunResult {
  bool started = false;
  bool timed_out = false;
  int exit_code = -1;
  std::string output;
  std::string error;  // why it could not start
};

// Runs argv with stdout+stderr captured to a file in `work`; kills it after
// `timeout_s` seconds.
RunResult run(const std::vector<std::string>& argv, const std::string& work, int timeout_s) {
  RunResult rr;
  std::string log = work + "/output.log";
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  // Its own process group: nvcc's children (cicc, ptxas, the host
  // compiler) are ended with it.
  auto spawned = spawn_in_new_group(argv, &fa);
  posix_spawn_file_actions_destroy(&fa);
  if (!spawned) {
    rr.error = "cannot run " + argv[0] + ": " + spawned.error().message();
    return rr;
  }
  const pid_t pid = *spawned;
  rr.started = true;
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  int status = 0;
  for (;;) {
    // Poll without reaping, so the group id stays the leader's until the
    // group has been ended.
    siginfo_t info{};
    info.si_pid = 0;
    if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0 && errno != EINTR) break;
    if (info.si_pid == pid) {
      status = wait_and_end_group(pid);
      break;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      status = end_group(pid);
      rr.timed_out = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (WIFEXITED(status)) rr.exit_code = WEXITSTATUS(status);
  auto text = read_whole_file(log, 4u << 20);
  if (text) rr.output = *text;
  return rr;
}

std::string first_lines(const std::string& s, int n) {
  std::string out;
  size_t pos = 0;
  for (int i = 0; i < n && pos < s.size(); ++i) {
    size_t nl = s.find('\n', pos);
    std::string line = s.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    if (!line.empty()) out += (out.empty() ? "" : " | ") + line;
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  return out;
}

// The most telling line of a compiler's output: the first "error" line,
// else the first line.
std::string telling_line(const std::string& s) {
  size_t pos = 0;
  while (pos < s.size()) {
    size_t nl = s.find('\n', pos);
    std::string line = s.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    if (line.find("error") != std::string::npos) return line;
    if (nl == std::string::npos) break;
    pos = nl + 1;
  }
  return first_lines(s, 1);
}

}  // namespace

bool CheckReport::ok() const {
  for (const auto& s : steps)
    if (!s.ok) return false;
  return !steps.empty();
}

std::vector<Diagnostic> CheckReport::diagnostics(const std::string& prefix) const {
  std::vector<Diagnostic> out;
  for (const auto& s : steps) {
    // A step not attempted (compile after a failed nvcc-release) is no
    // second problem: the first one says it all.
    if (s.ok || s.message.rfind("not attempted", 0) == 0) continue;
    Diagnostic d;
    d.rule = s.name;
    d.severity = Severity::error;
    d.path = prefix;
    d.message = s.message;
    out.push_back(std::move(d));
  }
  return out;
}

bool parse_nvcc_version(const std::string& text, std::string& release, std::string& version) {
  static const std::regex re(R"(release ([0-9]+\.[0-9]+), V([0-9]+\.[0-9]+\.[0-9]+))");
  std::smatch m;
  if (!std::regex_search(text, m, re)) return false;
  release = m[1].str();
  version = m[2].str();
  return true;
}

Expected<CheckReport> check_toolkit(const std::string& prefix, const CheckOptions& opts) {
  static const std::regex kRelease(R"(^([0-9]+)\.[0-9]+$)");
  std::smatch rm;
  if (!std::regex_match(opts.release, rm, kRelease))
    return Error("release '" + opts.release + "' is not X.Y");
  std::string pinned_major = rm[1].str();

  const char* tmp = getenv("TMPDIR");
  std::string tmpl = std::string(tmp && *tmp ? tmp : "/tmp") + "/cuwheel-check-XXXXXX";
  std::vector<char> buf(tmpl.begin(), tmpl.end());
  buf.push_back('\0');
  if (!mkdtemp(buf.data())) return Error("cannot create a temporary folder in " + tmpl);
  std::string work = buf.data();
  struct Cleanup {
    std::string dir;
    ~Cleanup() {
      std::error_code ec;
      fs::remove_all(dir, ec);
    }
  } cleanup{work};

  CheckReport rep;
  std::string nvcc = prefix + "/bin/nvcc";

  // 1. nvcc --version: the pinned release, and a version of its major.
  CheckStep ver{"nvcc-release", false, "", ""};
  struct stat st;
  bool nvcc_ok = false;
  if (::stat(nvcc.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || !(st.st_mode & 0111)) {
    ver.message = nvcc + " is missing or not executable";
  } else {
    RunResult r = run({nvcc, "--version"}, work, opts.timeout_s);
    if (!r.started) {
      ver.message = r.error;
    } else if (r.timed_out) {
      ver.message = nvcc + " --version did not finish in " + std::to_string(opts.timeout_s) + " s";
    } else if (!parse_nvcc_version(r.output, rep.nvcc_release, rep.nvcc_version)) {
      ver.message = nvcc + " --version printed no \"release X.Y, VX.Y.Z\" line" +
                    (r.exit_code ? " (exit status " + std::to_string(r.exit_code) + ")" : "") +
                    (r.output.empty() ? "" : ": " + first_lines(r.output, 2));
    } else if (rep.nvcc_release != opts.release) {
      ver.message = "nvcc reports release " + rep.nvcc_release + ", the pin is " + opts.release;
    } else if (rep.nvcc_version.substr(0, rep.nvcc_version.find('.')) != pinned_major) {
      ver.message = "nvcc reports version " + rep.nvcc_version + ", not of CUDA major " + pinned_major;
    } else {
      ver.ok = nvcc_ok = true;
      ver.message = "nvcc " + rep.nvcc_version + " (release " + rep.nvcc_release + ")";
    }
  }
  rep.steps.push_back(ver);

  // 2. The licence the wheels ship.
  CheckStep eula{"eula", false, "", ""};
  std::string eula_path = prefix + "/EULA.txt";
  if (::stat(eula_path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {
    eula.ok = true;
    eula.message = eula_path;
  } else {
    eula.message = eula_path + " is missing";
  }
  rep.steps.push_back(eula);

  // 3. A kernel, compiled and linked with the static runtime.
  CheckStep comp{"compile", false, "", ""};
  if (!nvcc_ok) {
    comp.message = "not attempted: nvcc failed the release check";
  } else {
    if (auto s = write_file_atomic(work + "/t.cu", kKernel); !s) return s.error();
    std::vector<std::string> argv = {nvcc};
    if (!opts.host_compiler.empty()) {
      argv.push_back("-ccbin");
      argv.push_back(opts.host_compiler);
    }
    for (const char* a : {"-cudart", "static", "-o"}) argv.push_back(a);
    argv.push_back(work + "/t");
    argv.push_back(work + "/t.cu");
    RunResult r = run(argv, work, opts.timeout_s);
    comp.output = r.output;
    std::string host = opts.host_compiler.empty() ? "nvcc's default host compiler" : opts.host_compiler;
    if (!r.started) {
      comp.message = r.error;
    } else if (r.timed_out) {
      comp.message = "compiling a kernel did not finish in " + std::to_string(opts.timeout_s) + " s";
    } else if (r.exit_code != 0) {
      comp.message = "compiling a kernel with " + host + " and the static runtime failed (exit status " +
                     std::to_string(r.exit_code) + "): " + telling_line(r.output);
    } else if (::stat((work + "/t").c_str(), &st) != 0) {
      comp.message = "nvcc reported success but wrote no executable";
    } else {
      comp.ok = true;
      comp.message = "a kernel compiled and linked with " + host + " and the static runtime";
    }
  }
  rep.steps.push_back(comp);
  return rep;
}

}  // namespace cuwheel::toolkit
