// Device helpers shared by the forward and backward kernels.
#ifndef MHA_CUDA_COMMON_CUH
#define MHA_CUDA_COMMON_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "mha_internal.h"

namespace mha::cuda {

// The dtype tags of MHA_CUDA_INSTANCES, as element types.
using f32 = float;
using f16 = __half;
using bf16 = __nv_bfloat16;

constexpr int kWarpSize = 32;
constexpr unsigned kFullMask = 0xffffffffu;
constexpr float kLog2e = 1.4426950408889634f;
constexpr float kLn2 = 0.6931471805599453f;

__device__ __forceinline__ float to_float(float x) { return x; }
__device__ __forceinline__ float to_float(__half x) { return __half2float(x); }
__device__ __forceinline__ float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }

template <typename T>
__device__ __forceinline__ T from_float(float x);
template <>
__device__ __forceinline__ float from_float<float>(float x) { return x; }
template <>
__device__ __forceinline__ __half from_float<__half>(float x) { return __float2half_rn(x); }
template <>
__device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float x) {
  return __float2bfloat16_rn(x);
}

__device__ __forceinline__ float warp_max(float x) {
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) {
    x = fmaxf(x, __shfl_xor_sync(kFullMask, x, offset));
  }
  return x;
}

__device__ __forceinline__ float warp_sum(float x) {
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) {
    x += __shfl_xor_sync(kFullMask, x, offset);
  }
  return x;
}

// Row stride of shared tiles whose rows are read by different lanes at once: D + 4 floats keeps
// rows 16-byte aligned for float4 loads and puts the 8 lanes of each load phase in distinct banks.
template <int D>
__host__ __device__ constexpr int padded() { return D + 4; }

__device__ __forceinline__ float4 load4(const float *p) { return *reinterpret_cast<const float4 *>(p); }

__device__ __forceinline__ float dot4(float4 a, float4 b, float acc) {
  return fmaf(a.x, b.x, fmaf(a.y, b.y, fmaf(a.z, b.z, fmaf(a.w, b.w, acc))));
}

// Copies rows [row0, row0 + rows) of a [seq, D] slice into shared memory as float with the given
// row stride. Rows past seq are 0.
template <typename T, int D>
__device__ __forceinline__ void load_tile(float *dst, int stride, const T *src, int row0, int rows,
                                          int seq, float factor) {
  for (int idx = threadIdx.x; idx < rows * D; idx += blockDim.x) {
    const int r = idx / D, c = idx % D;
    const int row = row0 + r;
    dst[r * stride + c] = row < seq ? to_float(src[static_cast<size_t>(row) * D + c]) * factor : 0.f;
  }
}

// Launch a kernel that needs more than the default 48 KiB of dynamic shared memory.
template <typename Kernel>
inline cudaError_t allow_shared_memory(Kernel kernel, size_t bytes) {
  return cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                              static_cast<int>(bytes));
}

}  // namespace mha::cuda
#endif
