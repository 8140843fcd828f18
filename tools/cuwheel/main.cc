// cuwheel command-line entry point (subcommands are being added).
#include <cstdio>
int main() {
  std::puts("cuwheel " CUWHEEL_VERSION);
  return 0;
}
