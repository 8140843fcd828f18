// The device code of the example extension: one kernel, compiled to a cubin
// by the configuration's device compiler (nvcc 13, or NVRTC 12 through
// nvrtcc for the CUDA 12 leg) and embedded in the extension.
extern "C" __global__ void roundtrip_scale(float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}
