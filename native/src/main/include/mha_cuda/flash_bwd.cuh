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
  return sizeof(float) * (2 * BwdTiles::kKeys * D + 2 * BwdTiles::kQueryTile * padded<D>() +
                          2 * BwdTiles::kQueryTile);
}

template <typename T, int D, bool CAUSAL>
__global__ void __launch_bounds__(BwdTiles::kThreads) bwd_dkdv_kernel(BwdParams p) {
  constexpr int BN = BwdTiles::kKeys, KPW = BwdTiles::kKeysPerWarp, BM = BwdTiles::kQueryTile;
  constexpr int DPL = D / kWarpSize, QS = padded<D>();
  extern __shared__ __align__(16) float smem[];
  float *k_s = smem;                    // [BN][D]
  float *v_s = k_s + BN * D;            // [BN][D]
  float *q_s = v_s + BN * D;            // [BM][QS]
  float *do_s = q_s + BM * QS;          // [BM][QS]
  float *lse_s = do_s + BM * QS;        // [BM], log2 domain
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
  const float *k_warp = k_s + warp * KPW * D;
  const float *v_warp = v_s + warp * KPW * D;

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
    load_tile<T, D>(q_s, QS, q, m0, BM, seq, 1.f);
    load_tile<T, D>(do_s, QS, dout, m0, BM, seq, 1.f);
    if (threadIdx.x < BM) {
      const int row = m0 + threadIdx.x;
      lse_s[threadIdx.x] = row < seq ? lse[row] * kLog2e : INFINITY;
      delta_s[threadIdx.x] = row < seq ? delta[row] : 0.f;
    }
    __syncthreads();

    // Lane = query row of the tile, against the warp's keys: S = Q K^T and dP = dO V^T.
    const int row = m0 + lane;
    const float *qr = q_s + lane * QS;
    const float *dor = do_s + lane * QS;
    float s[KPW], dp[KPW];
#pragma unroll
    for (int kk = 0; kk < KPW; ++kk) s[kk] = dp[kk] = 0.f;
#pragma unroll 4
    for (int d = 0; d < D; d += 4) {
      const float4 qv = load4(qr + d), gv = load4(dor + d);
#pragma unroll
      for (int kk = 0; kk < KPW; ++kk) {
        s[kk] = dot4(qv, load4(k_warp + kk * D + d), s[kk]);
        dp[kk] = dot4(gv, load4(v_warp + kk * D + d), dp[kk]);
      }
    }
    float prob[KPW], ds[KPW];
#pragma unroll
    for (int kk = 0; kk < KPW; ++kk) {
      const int key = n0 + warp * KPW + kk;
      const bool valid = row < seq && key < seq && (!CAUSAL || key <= row);
      prob[kk] = valid ? exp2f(s[kk] * scale_log2 - lse_s[lane]) : 0.f;
      ds[kk] = prob[kk] * (dp[kk] - delta_s[lane]);
    }

    // dV += P^T dO and dK += dS^T Q: one load of each query row's dims feeds every key.
#pragma unroll 4
    for (int i = 0; i < BM; ++i) {
      float doi[DPL], qi[DPL];
#pragma unroll
      for (int x = 0; x < DPL; ++x) {
        doi[x] = do_s[i * QS + lane + x * kWarpSize];
        qi[x] = q_s[i * QS + lane + x * kWarpSize];
      }
#pragma unroll
      for (int kk = 0; kk < KPW; ++kk) {
        const float pi = __shfl_sync(kFullMask, prob[kk], i);
        const float dsi = __shfl_sync(kFullMask, ds[kk], i);
#pragma unroll
        for (int x = 0; x < DPL; ++x) {
          dv[kk][x] = fmaf(pi, doi[x], dv[kk][x]);
          dk[kk][x] = fmaf(dsi, qi[x], dk[kk][x]);
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
  return sizeof(float) * (2 * BwdTiles::kRows * D + 2 * BwdTiles::kKeyTile * padded<D>());
}

template <typename T, int D, bool CAUSAL>
__global__ void __launch_bounds__(BwdTiles::kThreads) bwd_dq_kernel(BwdParams p) {
  constexpr int BM = BwdTiles::kRows, ROWS = BwdTiles::kRowsPerWarp, BN = BwdTiles::kKeyTile;
  constexpr int DPL = D / kWarpSize, KS = padded<D>();
  extern __shared__ __align__(16) float smem[];
  float *q_s = smem;                  // [BM][D]
  float *do_s = q_s + BM * D;         // [BM][D]
  float *k_s = do_s + BM * D;         // [BN][KS]
  float *v_s = k_s + BN * KS;         // [BN][KS]

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
  const float *q_warp = q_s + warp * ROWS * D;
  const float *do_warp = do_s + warp * ROWS * D;

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
    load_tile<T, D>(k_s, KS, k, n0, BN, seq, 1.f);
    load_tile<T, D>(v_s, KS, v, n0, BN, seq, 1.f);
    __syncthreads();

    // Lane = key of the tile, against the warp's rows.
    const int key = n0 + lane;
    const float *kr = k_s + lane * KS;
    const float *vr = v_s + lane * KS;
    float s[ROWS], dp[ROWS];
#pragma unroll
    for (int r = 0; r < ROWS; ++r) s[r] = dp[r] = 0.f;
#pragma unroll 4
    for (int d = 0; d < D; d += 4) {
      const float4 kv = load4(kr + d), vv = load4(vr + d);
#pragma unroll
      for (int r = 0; r < ROWS; ++r) {
        s[r] = dot4(load4(q_warp + r * D + d), kv, s[r]);
        dp[r] = dot4(load4(do_warp + r * D + d), vv, dp[r]);
      }
    }
    float ds[ROWS];
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      const int row = m0 + warp * ROWS + r;
      const bool valid = row < seq && key < seq && (!CAUSAL || key <= row);
      const float prob = valid ? exp2f(s[r] * scale_log2 - lse2[r]) : 0.f;
      ds[r] = prob * (dp[r] - delta[r]);
    }

    // dQ += dS K: one load of each key's dims feeds every row.
#pragma unroll 4
    for (int j = 0; j < BN; ++j) {
      float kj[DPL];
#pragma unroll
      for (int x = 0; x < DPL; ++x) kj[x] = k_s[j * KS + lane + x * kWarpSize];
#pragma unroll
      for (int r = 0; r < ROWS; ++r) {
        const float dsj = __shfl_sync(kFullMask, ds[r], j);
#pragma unroll
        for (int x = 0; x < DPL; ++x) dq[r][x] = fmaf(dsj, kj[x], dq[r][x]);
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
