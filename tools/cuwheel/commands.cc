// cuwheel command-line tool: the command table (commands.h). A new command
// is a row here plus its cmd_<name>.cc; the row's place is its place in
// `cuwheel --help`.
#include "commands.h"

namespace cuwheel::cli {

namespace {

constexpr Command kCommands[] = {
    {"list", "List the device code (SASS, PTX, ...) in ELF files, archives, wheels or directories", setup_list,
     run_list},
    {"show", "Show load-time facts (soname, NEEDED, RUNPATH, CUDA runtime) and a device-code summary", setup_show,
     run_show},
    {"check", "Check wheels (or libraries, or an installed environment) against a policy", setup_check, run_check},
    {"rules", "List the check rules (--all: every diagnostic id)", setup_rules, run_rules},
    {"rule", "Print a rule's documentation", setup_rule, run_rule},
    {"policy", "Validate policy files ([tool.cuwheel] in pyproject.toml, cuwheel.toml) as check, matrix and release read them",
     setup_policy, run_policy},
    {"diff", "Compare two builds of a wheel: sizes, members, device code, NEEDED and RUNPATH", setup_diff, run_diff},
    {"matrix",
     "Filter a generated CI build matrix by a release policy and print the {\"include\": [...]} matrix "
     "(docs/matrix.md)",
     setup_matrix, run_matrix},
    {"arch",
     "Convert a GPU architecture list between TORCH_CUDA_ARCH_LIST, CMAKE_CUDA_ARCHITECTURES, -gencode and sm_ "
     "forms, and check it against a CUDA release (docs/arch.md)",
     setup_arch, run_arch},

    {"release", "Release plumbing: select, verify, split, plan (docs/release.md)", nullptr, nullptr},
    {"release select", "Which distributions a tag releases, and to which indexes", setup_release_select,
     run_release_select},
    {"release verify", "Check that a folder holds exactly the release set of a version", setup_release_verify,
     run_release_verify},
    {"release split", "Put each file of a verified release set into OUT/<distribution>/", setup_release_split,
     run_release_split},
    {"release plan", "The publish order of a tag's distributions, as steps", setup_release_plan, run_release_plan},

    {"identity",
     "Build identity: keep generated sources and artifacts of one CUDA configuration apart from another's", nullptr,
     nullptr},
    {"identity show", "Print the identity of the current configuration and its keyed folder", setup_identity_show,
     run_identity_show},
    {"identity check", "Exit 1 when the last completed build's stamp differs or is missing", setup_identity_check,
     run_identity_check},
    {"identity stamp", "Record the identity as the last completed build (atomic write)", setup_identity_stamp,
     run_identity_stamp},

    {"repair",
     "Repair wheels for CUDA: no bundled driver or NVIDIA pip libraries (depend instead), search paths into the "
     "per-major layout, other libraries grafted, the most compatible manylinux tag (docs/repair.md)",
     setup_repair, run_repair},

    {"probe",
     "Will this wheel run on that GPU and driver: per library and GPU, native, by JIT, or CUDA error 209/222; "
     "with no path, this machine's driver and GPUs (docs/probe.md)",
     setup_probe, run_probe},

    {"run", "Run a command with the NVIDIA driver hidden (CPU-fallback tests)", setup_run, run_run},

    {"toolkit", "Pin, download, verify and unpack a CUDA toolkit from NVIDIA's RPM repository", nullptr, nullptr},
    {"toolkit lock", "Pin the closed set of RPMs of a CUDA release (SHA-256 and size) into a TOML lock",
     setup_toolkit_lock, run_toolkit_lock},
    {"toolkit download",
     "Fetch the locked RPMs into a folder, checking sizes, SHA-256 and the pinned key's signatures",
     setup_toolkit_download, run_toolkit_download},
    {"toolkit verify", "Check a download folder against the lock, offline", setup_toolkit_verify,
     run_toolkit_verify},
    {"toolkit extract", "Unpack the RPMs of a download folder into a CUDA_HOME tree (no root, no rpm)",
     setup_toolkit_extract, run_toolkit_extract},
    {"toolkit check",
     "Before a build: nvcc's release, EULA.txt, and a kernel compiled and linked with the static runtime",
     setup_toolkit_check, run_toolkit_check},
};

}  // namespace

std::span<const Command> commands() { return kCommands; }

}  // namespace cuwheel::cli
