/* GPU check of `cuwheel run --hide-driver`: loads the NVIDIA driver as CUDA
 * runtimes and Python bindings do, dlopen("libcuda.so.1"), and asks it for
 * the devices through the driver API (CUDA Driver API reference:
 * cuInit, cuDeviceGetCount, cuDeviceGet, cuDeviceGetName,
 * cuDriverGetVersion). No CUDA header is needed: the prototypes are
 * declared here with CUresult = int and CUdevice = int, as cuda.h has them.
 * Output, one fact per line:
 *   dlopen libcuda.so.1: ok | failed: <dlerror()>
 *   cuDriverGetVersion: 12080
 *   cuInit: 0
 *   cuDeviceGetCount: 1
 *   device 0: NVIDIA H200
 * Exit status: 0 loaded and at least one device, 1 not loaded, 2 loaded
 * but cuInit or cuDeviceGetCount failed or no device. */
#include <dlfcn.h>
#include <stdio.h>

typedef int (*init_fn)(unsigned int);
typedef int (*count_fn)(int *);
typedef int (*get_fn)(int *, int);
typedef int (*name_fn)(char *, int, int);
typedef int (*version_fn)(int *);

int main(void) {
  void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    printf("dlopen libcuda.so.1: failed: %s\n", dlerror());
    return 1;
  }
  printf("dlopen libcuda.so.1: ok\n");
  init_fn cu_init = (init_fn)dlsym(h, "cuInit");
  count_fn cu_count = (count_fn)dlsym(h, "cuDeviceGetCount");
  get_fn cu_get = (get_fn)dlsym(h, "cuDeviceGet");
  name_fn cu_name = (name_fn)dlsym(h, "cuDeviceGetName");
  version_fn cu_version = (version_fn)dlsym(h, "cuDriverGetVersion");
  if (!cu_init || !cu_count) {
    printf("dlsym: cuInit or cuDeviceGetCount missing\n");
    return 2;
  }
  if (cu_version) {
    int v = 0;
    int rc = cu_version(&v);
    printf("cuDriverGetVersion: %d (CUresult %d)\n", v, rc);
  }
  int rc = cu_init(0);
  printf("cuInit: %d\n", rc);
  if (rc != 0) return 2;
  int n = 0;
  rc = cu_count(&n);
  printf("cuDeviceGetCount: %d (CUresult %d)\n", n, rc);
  for (int i = 0; rc == 0 && cu_get && cu_name && i < n; ++i) {
    int dev = 0;
    char name[256] = {0};
    if (cu_get(&dev, i) == 0 && cu_name(name, (int)sizeof name, dev) == 0) printf("device %d: %s\n", i, name);
  }
  return rc == 0 && n > 0 ? 0 : 2;
}
