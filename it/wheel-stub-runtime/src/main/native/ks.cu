#include <cuda_runtime.h>

/* The runtime's version, or minus the error the runtime (or the stub, without one) returned. */
extern "C" int ks_runtime_version(void) {
  int version = 0;
  cudaError_t error = cudaRuntimeGetVersion(&version);
  return error == cudaSuccess ? version : -(int)error;
}
