// The plugin's one kernel: the sum of n 32-bit integers, exact (64-bit,
// two's complement), the same result as the CPU core's demo._core.sum.
// Compiled to a fat binary (SASS per architecture of the release list, PTX
// of its last entry) by nvcc for CUDA 13 and by NVRTC + nvFatbin for CUDA 12
// (tools/nvrtc_fatbin.cpp); the host code loads it with cudaLibraryLoadData.
// No headers: NVRTC compiles it as it is.

extern "C" __global__ void demo_sum(const int* x, unsigned long long n, unsigned long long* out) {
  __shared__ unsigned long long part[256];
  unsigned long long s = 0;
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    s += (unsigned long long)(long long)x[i];
  }
  part[threadIdx.x] = s;
  __syncthreads();
  for (unsigned int step = blockDim.x / 2; step > 0; step /= 2) {
    if (threadIdx.x < step) part[threadIdx.x] += part[threadIdx.x + step];
    __syncthreads();
  }
  if (threadIdx.x == 0) atomicAdd(out, part[0]);
}
