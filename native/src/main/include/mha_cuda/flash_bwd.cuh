// Flash-attention style backward, deterministic (no atomics), in three kernels on one stream:
//   1. delta[i] = rowsum(dout_i * out_i)
//   2. dK, dV: a block owns kKeys keys and walks the query rows in tiles of 32, recomputing
//      P = exp(S - lse) from the forward's log-sum-exp: dV += P^T dO, dK += dS^T Q,
//      with dS = P * (dO V^T - delta)
//   3. dQ: a block owns query rows and walks the keys: dQ += dS K
// Recomputing P twice costs flops but keeps every output written by exactly one block.
#ifndef MHA_CUDA_FLASH_BWD_CUH
#define MHA_CUDA_FLASH_BWD_CUH

#include "mha_cuda/common.cuh"

namespace mha::cuda {

struct BwdTiles {
  static constexpr int kWarps = 4;
  static constexpr int kThreads = kWarps * kWarpSize;
  static constexpr int kKeysPerWarp = 4;                      // dK/dV kernel
  static constexpr int kKeys = kWarps * kKeysPerWarp;
  static constexpr int kQueryTile = kWarpSize;
  static constexpr int kRowsPerWarp = 4;                      // dQ kernel
  static constexpr int kRows = kWarps * kRowsPerWarp;
  static constexpr int kKeyTile = kWarpSize;
};

template <typename T, int D>
__global__ void __launch_bounds__(BwdTiles::kThreads) bwd_delta_kernel(BwdParams p, size_t rows) {
  const size_t row = static_cast<size_t>(blockIdx.x) * BwdTiles::kWarps + threadIdx.x / kWarpSize;
  if (row >= rows) return;
  const int lane = threadIdx.x % kWarpSize;
  const T *o = static_cast<const T *>(p.out) + row * D;
  const T *g = static_cast<const T *>(p.dout) + row * D;
  float sum = 0.f;
  for (int d = lane; d < D; d += kWarpSize) sum = fmaf(to_float(o[d]), to_float(g[d]), sum);
  sum = warp_sum(sum);
  if (lane == 0) p.delta[row] = sum;
}

template <int D>
constexpr size_t dkdv_shared_bytes() {
  return sizeof(float) * (2 * BwdTiles::kKeys * D + 2 * BwdTiles::kQueryTile * (D + 1) +
                          2 * BwdTiles::kQueryTile);
}

template <typename T, int D, bool CAUSAL>
__global__ void __launch_bounds__(BwdTiles::kThreads) bwd_dkdv_kernel(BwdParams p) {
  constexpr int BN = BwdTiles::kKeys, KPW = BwdTiles::kKeysPerWarp, BM = BwdTiles::kQueryTile;
  constexpr int DPL = D / kWarpSize;
  extern __shared__ float smem[];
  float *k_s = smem;                    // [BN][D]
  float *v_s = k_s + BN * D;            // [BN][D]
  float *q_s = v_s + BN * D;            // [BM][D + 1]
  float *do_s = q_s + BM * (D + 1);     // [BM][D + 1]
  float *lse_s = do_s + BM * (D + 1);   // [BM], log2 domain
  float *delta_s = lse_s + BM;          // [BM]

  const int warp = threadIdx.x / kWarpSize, lane = threadIdx.x % kWarpSize;
  const int seq = p.seq;
  const size_t head = static_cast<size_t>(blockIdx.z) * p.heads + blockIdx.y;
  const size_t base = head * seq * D;
  const T *q = static_cast<const T *>(p.q) + base;
  const T *k = static_cast<const T *>(p.k) + base;
  const T *v = static_cast<const T *>(p.v) + base;
  const T *dout = static_cast<const T *>(p.dout) + base;
  const float *lse = p.lse + head * seq;
  const float *delta = p.delta + head * seq;
  const float scale_log2 = p.scale * kLog2e;
  const int n0 = blockIdx.x * BN;

  load_tile<T, D>(k_s, D, k, n0, BN, seq, 1.f);
  load_tile<T, D>(v_s, D, v, n0, BN, seq, 1.f);

  float dk[KPW][DPL], dv[KPW][DPL];
#pragma unroll
  for (int kk = 0; kk < KPW; ++kk) {
#pragma unroll
    for (int x = 0; x < DPL; ++x) dk[kk][x] = dv[kk][x] = 0.f;
  }

  // Causal: queries before this block's first key see none of its keys.
  const int m_begin = CAUSAL ? (n0 / BM) * BM : 0;
  for (int m0 = m_begin; m0 < seq; m0 += BM) {
    __syncthreads();
    load_tile<T, D>(q_s, D + 1, q, m0, BM, seq, 1.f);
    load_tile<T, D>(do_s, D + 1, dout, m0, BM, seq, 1.f);
    if (threadIdx.x < BM) {
      const int row = m0 + threadIdx.x;
      lse_s[threadIdx.x] = row < seq ? lse[row] * kLog2e : INFINITY;
      delta_s[threadIdx.x] = row < seq ? delta[row] : 0.f;
    }
    __syncthreads();
    const int row = m0 + lane;  // lane = query row of the tile
    const float *qr = q_s + lane * (D + 1);
    const float *dor = do_s + lane * (D + 1);
#pragma unroll
    for (int kk = 0; kk < KPW; ++kk) {
      const int local = warp * KPW + kk, key = n0 + local;
      const float *kr = k_s + local * D;
      const float *vr = v_s + local * D;
      float s = 0.f, dp = 0.f;
#pragma unroll 16
      for (int d = 0; d < D; ++d) {
        s = fmaf(qr[d], kr[d], s);
        dp = fmaf(dor[d], vr[d], dp);
      }
      const bool valid = row < seq && key < seq && (!CAUSAL || key <= row);
      const float prob = valid ? exp2f(s * scale_log2 - lse_s[lane]) : 0.f;
      const float ds = prob * (dp - delta_s[lane]);
#pragma unroll 8
      for (int i = 0; i < BM; ++i) {
        const float pi = __shfl_sync(kFullMask, prob, i);
        const float dsi = __shfl_sync(kFullMask, ds, i);
        const float *doi = do_s + i * (D + 1) + lane;
        const float *qi = q_s + i * (D + 1) + lane;
#pragma unroll
        for (int x = 0; x < DPL; ++x) {
          dv[kk][x] = fmaf(pi, doi[x * kWarpSize], dv[kk][x]);
          dk[kk][x] = fmaf(dsi, qi[x * kWarpSize], dk[kk][x]);
        }
      }
    }
  }

  T *dk_out = static_cast<T *>(p.dk) + base;
  T *dv_out = static_cast<T *>(p.dv) + base;
#pragma unroll
  for (int kk = 0; kk < KPW; ++kk) {
    const int key = n0 + warp * KPW + kk;
    if (key >= seq) continue;
#pragma unroll
    for (int x = 0; x < DPL; ++x) {
      const size_t at = static_cast<size_t>(key) * D + lane + x * kWarpSize;
      dk_out[at] = from_float<T>(dk[kk][x] * p.scale);
      dv_out[at] = from_float<T>(dv[kk][x]);
    }
  }
}

template <int D>
constexpr size_t dq_shared_bytes() {
  return sizeof(float) * (2 * BwdTiles::kRows * D + 2 * BwdTiles::kKeyTile * (D + 1));
}

template <typename T, int D, bool CAUSAL>
__global__ void __launch_bounds__(BwdTiles::kThreads) bwd_dq_kernel(BwdParams p) {
  constexpr int BM = BwdTiles::kRows, ROWS = BwdTiles::kRowsPerWarp, BN = BwdTiles::kKeyTile;
  constexpr int DPL = D / kWarpSize;
  extern __shared__ float smem[];
  float *q_s = smem;                  // [BM][D]
  float *do_s = q_s + BM * D;         // [BM][D]
  float *k_s = do_s + BM * D;         // [BN][D + 1]
  float *v_s = k_s + BN * (D + 1);    // [BN][D + 1]

  const int warp = threadIdx.x / kWarpSize, lane = threadIdx.x % kWarpSize;
  const int seq = p.seq;
  const size_t head = static_cast<size_t>(blockIdx.z) * p.heads + blockIdx.y;
  const size_t base = head * seq * D;
  const T *q = static_cast<const T *>(p.q) + base;
  const T *k = static_cast<const T *>(p.k) + base;
  const T *v = static_cast<const T *>(p.v) + base;
  const T *dout = static_cast<const T *>(p.dout) + base;
  const float scale_log2 = p.scale * kLog2e;
  const int m0 = blockIdx.x * BM;

  load_tile<T, D>(q_s, D, q, m0, BM, seq, 1.f);
  load_tile<T, D>(do_s, D, dout, m0, BM, seq, 1.f);

  float dq[ROWS][DPL], lse2[ROWS], delta[ROWS];
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    const int row = m0 + warp * ROWS + r;
    lse2[r] = row < seq ? p.lse[head * seq + row] * kLog2e : INFINITY;
    delta[r] = row < seq ? p.delta[head * seq + row] : 0.f;
#pragma unroll
    for (int x = 0; x < DPL; ++x) dq[r][x] = 0.f;
  }

  const int kv_end = CAUSAL ? min(seq, m0 + BM) : seq;
  for (int n0 = 0; n0 < kv_end; n0 += BN) {
    __syncthreads();
    load_tile<T, D>(k_s, D + 1, k, n0, BN, seq, 1.f);
    load_tile<T, D>(v_s, D + 1, v, n0, BN, seq, 1.f);
    __syncthreads();
    const int key = n0 + lane;  // lane = key of the tile
    const float *kr = k_s + lane * (D + 1);
    const float *vr = v_s + lane * (D + 1);
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      const int local = warp * ROWS + r, row = m0 + local;
      const float *qr = q_s + local * D;
      const float *dor = do_s + local * D;
      float s = 0.f, dp = 0.f;
#pragma unroll 16
      for (int d = 0; d < D; ++d) {
        s = fmaf(qr[d], kr[d], s);
        dp = fmaf(dor[d], vr[d], dp);
      }
      const bool valid = row < seq && key < seq && (!CAUSAL || key <= row);
      const float prob = valid ? exp2f(s * scale_log2 - lse2[r]) : 0.f;
      const float ds = prob * (dp - delta[r]);
#pragma unroll 8
      for (int j = 0; j < BN; ++j) {
        const float dsj = __shfl_sync(kFullMask, ds, j);
        const float *kj = k_s + j * (D + 1) + lane;
#pragma unroll
        for (int x = 0; x < DPL; ++x) dq[r][x] = fmaf(dsj, kj[x * kWarpSize], dq[r][x]);
      }
    }
  }

  T *dq_out = static_cast<T *>(p.dq) + base;
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    const int row = m0 + warp * ROWS + r;
    if (row >= seq) continue;
#pragma unroll
    for (int x = 0; x < DPL; ++x) {
      dq_out[static_cast<size_t>(row) * D + lane + x * kWarpSize] = from_float<T>(dq[r][x] * p.scale);
    }
  }
}

template <typename T, int D, bool CAUSAL>
int launch_bwd(const BwdParams &p, void *stream_handle) {
  static_assert(D % kWarpSize == 0, "head dim must be a multiple of the warp size");
  cudaStream_t stream = static_cast<cudaStream_t>(stream_handle);
  const size_t rows = static_cast<size_t>(p.batch) * p.heads * p.seq;
  const unsigned delta_blocks = static_cast<unsigned>((rows + BwdTiles::kWarps - 1) / BwdTiles::kWarps);
  bwd_delta_kernel<T, D><<<delta_blocks, BwdTiles::kThreads, 0, stream>>>(p, rows);

  constexpr size_t dkdv_bytes = dkdv_shared_bytes<D>();
  cudaError_t status = allow_shared_memory(bwd_dkdv_kernel<T, D, CAUSAL>, dkdv_bytes);
  if (status != cudaSuccess) return static_cast<int>(status);
  const dim3 dkdv_grid((p.seq + BwdTiles::kKeys - 1) / BwdTiles::kKeys, p.heads, p.batch);
  bwd_dkdv_kernel<T, D, CAUSAL><<<dkdv_grid, BwdTiles::kThreads, dkdv_bytes, stream>>>(p);

  constexpr size_t dq_bytes = dq_shared_bytes<D>();
  status = allow_shared_memory(bwd_dq_kernel<T, D, CAUSAL>, dq_bytes);
  if (status != cudaSuccess) return static_cast<int>(status);
  const dim3 dq_grid((p.seq + BwdTiles::kRows - 1) / BwdTiles::kRows, p.heads, p.batch);
  bwd_dq_kernel<T, D, CAUSAL><<<dq_grid, BwdTiles::kThreads, dq_bytes, stream>>>(p);
  return static_cast<int>(cudaGetLastError());
}

}  // namespace mha::cuda

#define MHA_DEFINE_BWD(T, D, C)                                                \
  namespace mha::cuda {                                                        \
  int bwd_##T##_d##D##_c##C(const BwdParams &params, void *stream) {          \
    return launch_bwd<T, D, (C) != 0>(params, stream);                        \
  }                                                                            \
  }

#endif
