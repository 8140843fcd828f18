// GPU check of `cuwheel run --hide-driver`: what a program linked with the
// static CUDA runtime (nvcc -cudart static, the default) sees. The runtime
// dlopens libcuda.so.1 itself; without a driver cudaGetDeviceCount returns
// cudaErrorInsufficientDriver ("CUDA driver version is insufficient for
// CUDA runtime version") or cudaErrorNoDevice. Host code only.
// Output: "cudaGetDeviceCount: N (cudaSuccess: no error)" or
//         "cudaGetDeviceCount: 0 (cudaErrorInsufficientDriver: ...)".
// Exit status: 0 when at least one device is seen, 1 otherwise.
#include <cstdio>

#include <cuda_runtime_api.h>

int main() {
  int n = 0;
  cudaError_t rc = cudaGetDeviceCount(&n);
  if (rc != cudaSuccess) n = 0;
  std::printf("cudaGetDeviceCount: %d (%s: %s)\n", n, cudaGetErrorName(rc), cudaGetErrorString(rc));
  int runtime = 0;
  if (cudaRuntimeGetVersion(&runtime) == cudaSuccess) std::printf("cudaRuntimeGetVersion: %d\n", runtime);
  for (int i = 0; i < n; ++i) {
    cudaDeviceProp p{};
    if (cudaGetDeviceProperties(&p, i) == cudaSuccess)
      std::printf("device %d: %s, compute capability %d.%d\n", i, p.name, p.major, p.minor);
  }
  return n > 0 ? 0 : 1;
}
