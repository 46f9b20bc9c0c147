// CUDA error text for the host glue, which is compiled without the CUDA headers.
#include <cuda_runtime.h>

#include "mha_internal.h"

namespace mha::cuda {
const char *error_string(int error) { return cudaGetErrorString(static_cast<cudaError_t>(error)); }
}  // namespace mha::cuda
