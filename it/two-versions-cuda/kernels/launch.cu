// The private kernel and its launcher. The value written is the version of the library whose
// kvcu_version() the launcher reached (an exported function: it must be this library's own).
#include <cuda_runtime.h>

extern "C" int kvcu_version(void);

__global__ void kvcu_fill(int *out, int value) { *out = value; }

// The host-side handle of the kernel a launch from this library starts.
extern "C" const void *kvcu_detail_kernel(void) { return reinterpret_cast<const void *>(&kvcu_fill); }

extern "C" int kvcu_detail_launch(int *result) {
  int *device = nullptr;
  if (cudaMalloc(&device, sizeof(int)) != cudaSuccess) {
    return -1;
  }
  kvcu_fill<<<1, 1>>>(device, kvcu_version() * 10);
  cudaError_t status = cudaMemcpy(result, device, sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(device);
  return status == cudaSuccess ? 0 : -1;
}
