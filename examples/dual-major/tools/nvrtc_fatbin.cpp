// nvrtc-fatbin: the CUDA 12 plugin's device compiler, for a CUDA 12 prefix
// assembled from PyPI wheels (get-cuda12.sh), which has no nvcc.
//
//   nvrtc-fatbin --archs sm_75,sm_80,...,compute_121 -o OUT.fatbin FILE.cu
//
// NVRTC compiles FILE.cu once per entry: a cubin (SASS) for each sm_XY, PTX
// for each compute_XY; nvFatbin packs them into one fat binary, the
// container nvcc -fatbin writes and cudaLibraryLoadData reads. Exit status
// 0 on success, 1 when a compilation fails (NVRTC's log on stderr), 2 on a
// usage error.
#include <nvFatbin.h>
#include <nvrtc.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

bool nvrtc_ok(nvrtcResult r, const char* what) {
  if (r == NVRTC_SUCCESS) return true;
  std::fprintf(stderr, "nvrtc-fatbin: %s: %s\n", what, nvrtcGetErrorString(r));
  return false;
}

bool fatbin_ok(nvFatbinResult r, const char* what) {
  if (r == NVFATBIN_SUCCESS) return true;
  std::fprintf(stderr, "nvrtc-fatbin: %s: %s\n", what, nvFatbinGetErrorString(r));
  return false;
}

// Compiles source for one entry (sm_XY: cubin, compute_XY: PTX) into out.
bool compile(const std::string& source, const std::string& name, const std::string& entry, std::string& out) {
  nvrtcProgram prog;
  if (!nvrtc_ok(nvrtcCreateProgram(&prog, source.c_str(), name.c_str(), 0, nullptr, nullptr), "create")) return false;
  std::string arch = "--gpu-architecture=" + entry;
  const char* opts[] = {arch.c_str()};
  nvrtcResult r = nvrtcCompileProgram(prog, 1, opts);
  size_t log_size = 0;
  nvrtcGetProgramLogSize(prog, &log_size);
  if (log_size > 1) {
    std::string log(log_size, '\0');
    nvrtcGetProgramLog(prog, log.data());
    std::fprintf(stderr, "%s", log.c_str());
  }
  bool ok = nvrtc_ok(r, entry.c_str());
  size_t size = 0;
  if (ok && entry.rfind("sm_", 0) == 0) {
    ok = nvrtc_ok(nvrtcGetCUBINSize(prog, &size), "cubin size");
    out.assign(size, '\0');
    ok = ok && nvrtc_ok(nvrtcGetCUBIN(prog, out.data()), "cubin");
  } else if (ok) {
    ok = nvrtc_ok(nvrtcGetPTXSize(prog, &size), "ptx size");
    out.assign(size, '\0');
    ok = ok && nvrtc_ok(nvrtcGetPTX(prog, out.data()), "ptx");
  }
  nvrtcDestroyProgram(&prog);
  return ok;
}

int usage() {
  std::fprintf(stderr, "usage: nvrtc-fatbin --archs sm_XY,...,compute_XY -o OUT.fatbin FILE.cu | --version\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  std::string archs, output, input;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--version") {
      int major = 0, minor = 0;
      nvrtcVersion(&major, &minor);
      std::printf("nvrtc-fatbin: NVRTC %d.%d\n", major, minor);
      return 0;
    }
    if (a == "--archs" && i + 1 < argc) archs = argv[++i];
    else if (a == "-o" && i + 1 < argc) output = argv[++i];
    else if (!a.empty() && a[0] != '-' && input.empty()) input = a;
    else return usage();
  }
  if (archs.empty() || output.empty() || input.empty()) return usage();
  std::ifstream in(input, std::ios::binary);
  if (!in) {
    std::fprintf(stderr, "nvrtc-fatbin: cannot read %s\n", input.c_str());
    return 2;
  }
  std::stringstream text;
  text << in.rdbuf();
  std::string name = input.substr(input.find_last_of('/') + 1);

  nvFatbinHandle fatbin;
  if (!fatbin_ok(nvFatbinCreate(&fatbin, nullptr, 0), "create")) return 1;
  std::stringstream list(archs);
  std::string entry;
  bool ok = true;
  while (ok && std::getline(list, entry, ',')) {
    bool sass = entry.rfind("sm_", 0) == 0;
    if (!sass && entry.rfind("compute_", 0) != 0) {
      std::fprintf(stderr, "nvrtc-fatbin: '%s' is neither sm_XY nor compute_XY\n", entry.c_str());
      return 2;
    }
    std::string number = entry.substr(entry.find('_') + 1), code;
    ok = compile(text.str(), name, entry, code);
    if (ok && sass) ok = fatbin_ok(nvFatbinAddCubin(fatbin, code.data(), code.size(), number.c_str(), name.c_str()), entry.c_str());
    if (ok && !sass) ok = fatbin_ok(nvFatbinAddPTX(fatbin, code.data(), code.size(), number.c_str(), name.c_str(), ""), entry.c_str());
  }
  size_t size = 0;
  std::vector<char> bytes;
  if (ok) ok = fatbin_ok(nvFatbinSize(fatbin, &size), "size");
  if (ok) {
    bytes.resize(size);
    ok = fatbin_ok(nvFatbinGet(fatbin, bytes.data()), "get");
  }
  nvFatbinDestroy(&fatbin);
  if (!ok) return 1;
  std::string tmp = output + ".tmp";
  std::ofstream out(tmp, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out || std::rename(tmp.c_str(), output.c_str()) != 0) {
    std::fprintf(stderr, "nvrtc-fatbin: cannot write %s\n", output.c_str());
    return 1;
  }
  return 0;
}
