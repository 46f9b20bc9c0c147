#include <cuda_runtime.h>
#include "dev.cuh" // from the dev-lib dependency

__global__ void app_kernel(int *out, int x) { *out = dep_twice(x) + 1; }

// 2 * x + 1 from the GPU, through dev-lib's device function; -1 on a CUDA error.
extern "C" int app_run(int x) {
  int *device = nullptr;
  if (cudaMalloc(&device, sizeof(int)) != cudaSuccess) return -1;
  app_kernel<<<1, 1>>>(device, x);
  int result = -1;
  cudaError_t status = cudaMemcpy(&result, device, sizeof(int), cudaMemcpyDeviceToHost);
  cudaFree(device);
  return status == cudaSuccess ? result : -1;
}
