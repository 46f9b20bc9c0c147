// Device helpers shared by the forward and backward kernels.
#ifndef MHA_CUDA_COMMON_CUH
#define MHA_CUDA_COMMON_CUH

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "mha_internal.h"

namespace mha::cuda {

// The dtype tags of MHA_CUDA_INSTANCES, as element types.
using f32 = float;
using f16 = __half;
using bf16 = __nv_bfloat16;
// OCP FP8 E4M3 (torch.float8_e4m3fn): 4 exponent bits (bias 7), 3 mantissa bits, finite to 448.
using e4m3 = __nv_fp8_e4m3;

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

// The maximum and the sum over the four lanes that hold one row of an mma fragment (lane / 4).
__device__ __forceinline__ float quad_max(float x) {
  x = fmaxf(x, __shfl_xor_sync(kFullMask, x, 1));
  return fmaxf(x, __shfl_xor_sync(kFullMask, x, 2));
}
__device__ __forceinline__ float quad_sum(float x) {
  x += __shfl_xor_sync(kFullMask, x, 1);
  return x + __shfl_xor_sync(kFullMask, x, 2);
}

// What a finished output row is multiplied by: 1 / its softmax sum (0 for a row that saw no key),
// times the kernel variant's scale.
__device__ __forceinline__ float output_factor(float row_sum) {
  return row_sum > 0.f ? kVariantOutputScale / row_sum : 0.f;
}

__device__ __forceinline__ float warp_sum(float x) {
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2) {
    x += __shfl_xor_sync(kFullMask, x, offset);
  }
  return x;
}

// acc[r][x] += sum over j < N of w_j(r) * tile[j * stride + lane + x * 32], where lane j of the
// warp holds w_j(r) in weights[r]: the fp32 kernels' P V (forward) and dS K (backward, dQ). Each
// tile row is loaded once and feeds every row of the warp.
template <int N, int ROWS, int DPL>
__device__ __forceinline__ void accumulate_broadcast(float (&acc)[ROWS][DPL], const float (&weights)[ROWS],
                                                     const float *tile, int stride, int lane) {
#pragma unroll 4
  for (int j = 0; j < N; ++j) {
    float tj[DPL];
#pragma unroll
    for (int x = 0; x < DPL; ++x) tj[x] = tile[j * stride + lane + x * kWarpSize];
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      const float wj = __shfl_sync(kFullMask, weights[r], j);
#pragma unroll
      for (int x = 0; x < DPL; ++x) acc[r][x] = fmaf(wj, tj[x], acc[r][x]);
    }
  }
}

// Row stride of shared tiles whose rows are read by different lanes at once: D + 4 floats keeps
// rows 16-byte aligned for float4 loads and puts the 8 lanes of each load phase in distinct banks.
template <int D>
__host__ __device__ constexpr int padded() { return D + 4; }

__device__ __forceinline__ float4 load4(const float *p) { return *reinterpret_cast<const float4 *>(p); }

__device__ __forceinline__ float dot4(float4 a, float4 b, float acc) {
  return fmaf(a.x, b.x, fmaf(a.y, b.y, fmaf(a.z, b.z, fmaf(a.w, b.w, acc))));
}

// The query block of this thread block. With a causal mask the last query blocks see the most
// keys; handing them out first keeps the tail of the grid short.
template <bool CAUSAL>
__device__ __forceinline__ int query_block() {
  return CAUSAL ? static_cast<int>(gridDim.x - 1 - blockIdx.x) : static_cast<int>(blockIdx.x);
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

// ---- Tensor cores: mma.sync m16n8k16 with float accumulators (sm_80 and later) ----
// Fragment layouts are those of the PTX ISA ("Matrix Fragments for mma.m16n8k16"): with
// g = lane / 4 and t = lane % 4, A (16x16, row-major) holds rows g and g+8, columns 2t, 2t+1 and
// 2t+8, 2t+9; B (16x8) holds k = 2t, 2t+1 and 2t+8, 2t+9 of column g; C (16x8) holds rows g and
// g+8, columns 2t, 2t+1.

__device__ __forceinline__ unsigned short bits16(__half x) { return __half_as_ushort(x); }
__device__ __forceinline__ unsigned short bits16(__nv_bfloat16 x) { return __bfloat16_as_ushort(x); }

// Two floats rounded to T, the first in the low half (the lower k or column index).
template <typename T>
__device__ __forceinline__ uint32_t pack2(float lo, float hi) {
  return static_cast<uint32_t>(bits16(from_float<T>(lo))) |
         (static_cast<uint32_t>(bits16(from_float<T>(hi))) << 16);
}

// Not volatile: a pure register operation the compiler may schedule between the loads.
template <typename T>
__device__ __forceinline__ void mma_16816(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  if constexpr (std::is_same<T, __half>::value) {
    asm(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  } else {
    asm(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
}

// ldmatrix: eight lanes each name one 16-byte row of an 8x8 tile of 16-bit values in shared
// memory (lanes 0-7 the first tile, 8-15 the second); every lane receives, per tile, the pair at
// row g, columns 2t and 2t+1 — or with .trans the pair at rows 2t, 2t+1 of column g — exactly the
// B fragment layout, in one instruction instead of several loads.
__device__ __forceinline__ uint32_t shared_address(const void *p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void ldmatrix_x2(uint32_t &r0, uint32_t &r1, const unsigned short *row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];\n"
               : "=r"(r0), "=r"(r1)
               : "r"(shared_address(row)));
}

__device__ __forceinline__ void ldmatrix_x2_trans(uint32_t &r0, uint32_t &r1, const unsigned short *row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];\n"
               : "=r"(r0), "=r"(r1)
               : "r"(shared_address(row)));
}

// B fragment (k along a tile row's columns): rows n0..n0+7 of a shared tile, columns
// 16 ks .. 16 ks + 15. A tile row holds one n; its adjacent columns are the k pairs.
template <typename T, int STRIDE>
__device__ __forceinline__ void mma_b_cols(float (&c)[4], const uint32_t (&a)[4], const unsigned short *tile,
                                           int n0, int ks, int lane) {
  uint32_t b0, b1;
  ldmatrix_x2(b0, b1, tile + (n0 + (lane & 7)) * STRIDE + ks * 16 + ((lane >> 3) & 1) * 8);
  mma_16816<T>(c, a, b0, b1);
}

// B fragment (k along a tile's rows): rows k0..k0+15 of a shared tile, columns n0..n0+7.
template <typename T, int STRIDE>
__device__ __forceinline__ void mma_b_rows(float (&c)[4], const uint32_t (&a)[4], const unsigned short *tile,
                                           int k0, int n0, int lane) {
  uint32_t b0, b1;
  ldmatrix_x2_trans(b0, b1, tile + (k0 + (lane & 7) + ((lane >> 3) & 1) * 8) * STRIDE + n0);
  mma_16816<T>(c, a, b0, b1);
}

// Writes accumulator fragments covering all D columns of two rows of a [seq, D] output: row_a
// from elements 0 and 1 of each tile, row_b from 2 and 3, each row times its own factor. Rows
// past seq (padding of the last block) are not written.
template <typename T, int D>
__device__ __forceinline__ void store_rows(unsigned short *out, const float (&acc)[D / 8][4], int row_a,
                                           int row_b, int seq, int t, float factor_a, float factor_b) {
#pragma unroll
  for (int dt = 0; dt < D / 8; ++dt) {
    const int col = dt * 8 + 2 * t;
    if (row_a < seq) {
      *reinterpret_cast<uint32_t *>(out + static_cast<size_t>(row_a) * D + col) =
          pack2<T>(acc[dt][0] * factor_a, acc[dt][1] * factor_a);
    }
    if (row_b < seq) {
      *reinterpret_cast<uint32_t *>(out + static_cast<size_t>(row_b) * D + col) =
          pack2<T>(acc[dt][2] * factor_b, acc[dt][3] * factor_b);
    }
  }
}

// Copies rows [row0, row0 + rows) of a [seq, D] slice of 16-bit elements into shared memory with
// row stride D + 8 (16-byte aligned rows; the pad spreads fragment loads over all banks), 16
// bytes per load. Rows past seq are zero, so masked keys meet zeros in V rather than garbage.
template <int D>
__device__ __forceinline__ void copy_tile16(unsigned short *dst, const unsigned short *src, int row0,
                                            int rows, int seq) {
  constexpr int kChunks = D / 8;
  for (int idx = threadIdx.x; idx < rows * kChunks; idx += blockDim.x) {
    const int r = idx / kChunks, c = idx % kChunks;
    const int row = row0 + r;
    const uint4 value = row < seq ? *reinterpret_cast<const uint4 *>(src + static_cast<size_t>(row) * D + c * 8)
                                  : make_uint4(0, 0, 0, 0);
    *reinterpret_cast<uint4 *>(dst + r * (D + 8) + c * 8) = value;
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
