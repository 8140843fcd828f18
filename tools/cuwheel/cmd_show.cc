// `cuwheel show`: load-time facts and a device-code summary per ELF file.
#include "cli.h"

namespace cuwheel::cli {

int run_show(const ShowOptions& opts) {
  print_error("show", "not implemented yet");
  return kExitUnreadable;
}

}  // namespace cuwheel::cli
