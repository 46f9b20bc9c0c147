// Flash-attention style forward: one block owns kBlockM query rows of one (batch, head) and walks
// the keys in tiles of kBlockN, keeping a running row maximum and sum (online softmax) so the
// seq x seq score matrix never exists. Scores are kept in the log2 domain so exp2f does the work.
//
// Thread layout: 4 warps, each owning kRowsPerWarp query rows. For the scores, lane j takes key j
// of the tile against all the warp's rows at once (the query rows are shared-memory broadcasts,
// the key row one float4 load reused by every row); for the output, lane l owns head dimensions
// l, l+32, ... and pulls each key's probability from its lane by shuffle.
#ifndef MHA_CUDA_FLASH_FWD_CUH
#define MHA_CUDA_FLASH_FWD_CUH

#include "mha_cuda/common.cuh"

namespace mha::cuda {

struct FwdTiles {
  static constexpr int kWarps = 4;
  static constexpr int kRowsPerWarp = 4;
  static constexpr int kBlockM = kWarps * kRowsPerWarp;
  static constexpr int kBlockN = kWarpSize;
  static constexpr int kThreads = kWarps * kWarpSize;
};

template <typename T, int D, bool CAUSAL>
__global__ void __launch_bounds__(FwdTiles::kThreads) flash_fwd_kernel(FwdParams p) {
  constexpr int BM = FwdTiles::kBlockM, BN = FwdTiles::kBlockN, ROWS = FwdTiles::kRowsPerWarp;
  constexpr int DPL = D / kWarpSize;  // head dimensions per lane
  constexpr int KS = padded<D>();
  __shared__ __align__(16) float q_s[BM * D];
  __shared__ __align__(16) float k_s[BN * KS];
  __shared__ __align__(16) float v_s[BN * D];

  const int warp = threadIdx.x / kWarpSize, lane = threadIdx.x % kWarpSize;
  const int seq = p.seq;
  const size_t head = static_cast<size_t>(blockIdx.z) * p.heads + blockIdx.y;
  const size_t base = head * seq * D;
  const T *q = static_cast<const T *>(p.q) + base;
  const T *k = static_cast<const T *>(p.k) + base;
  const T *v = static_cast<const T *>(p.v) + base;
  const int m0 = blockIdx.x * BM;
  const float *q_warp = q_s + warp * ROWS * D;

  load_tile<T, D>(q_s, D, q, m0, BM, seq, p.scale * kLog2e);

  float row_max[ROWS], row_sum[ROWS], acc[ROWS][DPL];
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    row_max[r] = -INFINITY;
    row_sum[r] = 0.f;
#pragma unroll
    for (int x = 0; x < DPL; ++x) acc[r][x] = 0.f;
  }

  const int kv_end = CAUSAL ? min(seq, m0 + BM) : seq;
  for (int n0 = 0; n0 < kv_end; n0 += BN) {
    __syncthreads();  // the previous tile is consumed
    load_tile<T, D>(k_s, KS, k, n0, BN, seq, 1.f);
    load_tile<T, D>(v_s, D, v, n0, BN, seq, 1.f);
    __syncthreads();

    // Scores of this lane's key against the warp's rows: one K load feeds every row.
    const int key = n0 + lane;
    const float *kr = k_s + lane * KS;
    float score[ROWS];
#pragma unroll
    for (int r = 0; r < ROWS; ++r) score[r] = 0.f;
#pragma unroll 8
    for (int d = 0; d < D; d += 4) {
      const float4 kv = load4(kr + d);
#pragma unroll
      for (int r = 0; r < ROWS; ++r) score[r] = dot4(load4(q_warp + r * D + d), kv, score[r]);
    }

    float prob[ROWS];
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      const int row = m0 + warp * ROWS + r;
      const bool valid = key < seq && (!CAUSAL || key <= row);
      const float s = valid ? score[r] : -INFINITY;
      const float new_max = fmaxf(row_max[r], warp_max(s));
      // A row with every key so far masked (only rows past seq) keeps zeros instead of NaN.
      const float shift = new_max == -INFINITY ? 0.f : new_max;
      prob[r] = exp2f(s - shift);
      const float rescale = exp2f(row_max[r] - shift);
      row_sum[r] = row_sum[r] * rescale + warp_sum(prob[r]);
      row_max[r] = new_max;
#pragma unroll
      for (int x = 0; x < DPL; ++x) acc[r][x] *= rescale;
    }

    // P V: one V load per head dimension feeds every row.
#pragma unroll 4
    for (int j = 0; j < BN; ++j) {
      float vj[DPL];
#pragma unroll
      for (int x = 0; x < DPL; ++x) vj[x] = v_s[j * D + lane + x * kWarpSize];
#pragma unroll
      for (int r = 0; r < ROWS; ++r) {
        const float pj = __shfl_sync(kFullMask, prob[r], j);
#pragma unroll
        for (int x = 0; x < DPL; ++x) acc[r][x] = fmaf(pj, vj[x], acc[r][x]);
      }
    }
  }

  T *out = static_cast<T *>(p.out) + base;
#pragma unroll
  for (int r = 0; r < ROWS; ++r) {
    const int row = m0 + warp * ROWS + r;
    if (row >= seq) continue;
    const float inv = row_sum[r] > 0.f ? kVariantOutputScale / row_sum[r] : 0.f;
#pragma unroll
    for (int x = 0; x < DPL; ++x) {
      out[static_cast<size_t>(row) * D + lane + x * kWarpSize] = from_float<T>(acc[r][x] * inv);
    }
    if (p.lse != nullptr && lane == 0) {
      p.lse[head * seq + row] = row_max[r] * kLn2 + logf(row_sum[r]);
    }
  }
}

template <typename T, int D, bool CAUSAL>
int launch_fwd(const FwdParams &p, void *stream) {
  static_assert(D % kWarpSize == 0, "head dim must be a multiple of the warp size");
  const dim3 grid((p.seq + FwdTiles::kBlockM - 1) / FwdTiles::kBlockM, p.heads, p.batch);
  flash_fwd_kernel<T, D, CAUSAL>
      <<<grid, FwdTiles::kThreads, 0, static_cast<cudaStream_t>(stream)>>>(p);
  return static_cast<int>(cudaGetLastError());
}

}  // namespace mha::cuda

// One kernel instance per translation unit (see generate-instances.sh).
#define MHA_DEFINE_FWD(T, D, C)                                                \
  namespace mha::cuda {                                                        \
  int fwd_##T##_d##D##_c##C(const FwdParams &params, void *stream) {          \
    return launch_fwd<T, D, (C) != 0>(params, stream);                        \
  }                                                                            \
  }

#endif
