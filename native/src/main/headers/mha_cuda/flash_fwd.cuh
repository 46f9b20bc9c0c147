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
#include "mha_cuda/hopper_fwd.cuh"

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
  const int m0 = query_block<CAUSAL>() * BM;
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
    accumulate_broadcast<BN>(acc, prob, v_s, D, lane);
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

// fp16 / bf16 forward on tensor cores, FlashAttention-2 style: 4 warps, each owning 16 query
// rows; Q stays in registers as mma A fragments, K and V tiles of 64 keys go through shared
// memory. S = Q K^T lands in C fragments whose layout is also that of the A fragments of the next
// product, so P never leaves registers: the online softmax runs on the fragments (a row's four
// lanes reduce with two shuffles) and P V accumulates into the output fragments, rescaled per row.
struct MmaFwdTiles {
  static constexpr int kWarps = 4;
  static constexpr int kBlockM = kWarps * 16;
  static constexpr int kBlockN = 64;
  static constexpr int kThreads = kWarps * kWarpSize;
};

// At most 168 registers a thread (3 blocks, 12 warps an SM): at 170+ allocation rounds up to 176
// and only 2 blocks fit, which ncu showed costing the causal forward about 25%.
template <typename T, int D, bool CAUSAL>
__global__ void __launch_bounds__(MmaFwdTiles::kThreads, 3) flash_fwd_mma_kernel(FwdParams p) {
  constexpr int BM = MmaFwdTiles::kBlockM, BN = MmaFwdTiles::kBlockN, STRIDE = D + 8;
  constexpr int KSTEPS = D / 16, DTILES = D / 8, NTILES = BN / 8;
  __shared__ __align__(16) unsigned short k_s[BN * STRIDE];
  __shared__ __align__(16) unsigned short v_s[BN * STRIDE];

  const int warp = threadIdx.x / kWarpSize, lane = threadIdx.x % kWarpSize;
  const int g = lane / 4, t = lane % 4;
  const int seq = p.seq;
  const size_t head = static_cast<size_t>(blockIdx.z) * p.heads + blockIdx.y;
  const size_t base = head * seq * D;
  const auto *q = static_cast<const unsigned short *>(p.q) + base;
  const auto *k = static_cast<const unsigned short *>(p.k) + base;
  const auto *v = static_cast<const unsigned short *>(p.v) + base;
  const int m0 = query_block<CAUSAL>() * BM;
  const int row_a = m0 + warp * 16 + g, row_b = row_a + 8;  // the two rows this lane holds
  const float scale_log2 = p.scale * kLog2e;

  // Q fragments, straight from global memory (read once per block).
  uint32_t qf[KSTEPS][4];
  auto q_pair = [&](int row, int col) -> uint32_t {
    return row < seq ? *reinterpret_cast<const uint32_t *>(q + static_cast<size_t>(row) * D + col) : 0u;
  };
#pragma unroll
  for (int ks = 0; ks < KSTEPS; ++ks) {
    const int col = ks * 16 + 2 * t;
    qf[ks][0] = q_pair(row_a, col);
    qf[ks][1] = q_pair(row_b, col);
    qf[ks][2] = q_pair(row_a, col + 8);
    qf[ks][3] = q_pair(row_b, col + 8);
  }

  float o[DTILES][4];
#pragma unroll
  for (int dt = 0; dt < DTILES; ++dt) o[dt][0] = o[dt][1] = o[dt][2] = o[dt][3] = 0.f;
  float max_a = -INFINITY, max_b = -INFINITY, sum_a = 0.f, sum_b = 0.f;  // sums: this lane's part

  const int kv_end = CAUSAL ? min(seq, m0 + BM) : seq;
  for (int n0 = 0; n0 < kv_end; n0 += BN) {
    __syncthreads();
    copy_tile16<D>(k_s, k, n0, BN, seq);
    copy_tile16<D>(v_s, v, n0, BN, seq);
    __syncthreads();

    float s[NTILES][4];
#pragma unroll
    for (int nt = 0; nt < NTILES; ++nt) s[nt][0] = s[nt][1] = s[nt][2] = s[nt][3] = 0.f;
#pragma unroll
    for (int ks = 0; ks < KSTEPS; ++ks) {
#pragma unroll
      for (int nt = 0; nt < NTILES; ++nt) {
        mma_b_cols<T, STRIDE>(s[nt], qf[ks], k_s, nt * 8, ks, lane);
      }
    }

    // Mask, then the online softmax on the fragments.
    float tile_a = -INFINITY, tile_b = -INFINITY;
#pragma unroll
    for (int nt = 0; nt < NTILES; ++nt) {
#pragma unroll
      for (int j = 0; j < 2; ++j) {
        const int key = n0 + nt * 8 + 2 * t + j;
        s[nt][j] = key < seq && (!CAUSAL || key <= row_a) ? s[nt][j] * scale_log2 : -INFINITY;
        s[nt][2 + j] = key < seq && (!CAUSAL || key <= row_b) ? s[nt][2 + j] * scale_log2 : -INFINITY;
        tile_a = fmaxf(tile_a, s[nt][j]);
        tile_b = fmaxf(tile_b, s[nt][2 + j]);
      }
    }
    tile_a = quad_max(tile_a);
    tile_b = quad_max(tile_b);
    const float new_a = fmaxf(max_a, tile_a), new_b = fmaxf(max_b, tile_b);
    const float shift_a = new_a == -INFINITY ? 0.f : new_a, shift_b = new_b == -INFINITY ? 0.f : new_b;
    const float rescale_a = exp2f(max_a - shift_a), rescale_b = exp2f(max_b - shift_b);
    max_a = new_a;
    max_b = new_b;
    sum_a *= rescale_a;
    sum_b *= rescale_b;
#pragma unroll
    for (int dt = 0; dt < DTILES; ++dt) {
      o[dt][0] *= rescale_a;
      o[dt][1] *= rescale_a;
      o[dt][2] *= rescale_b;
      o[dt][3] *= rescale_b;
    }
#pragma unroll
    for (int nt = 0; nt < NTILES; ++nt) {
#pragma unroll
      for (int j = 0; j < 2; ++j) {
        s[nt][j] = exp2f(s[nt][j] - shift_a);
        s[nt][2 + j] = exp2f(s[nt][2 + j] - shift_b);
        sum_a += s[nt][j];
        sum_b += s[nt][2 + j];
      }
    }

    // O += P V: two S tiles of 8 keys make the A fragment of 16 keys.
#pragma unroll
    for (int kk = 0; kk < BN / 16; ++kk) {
      const uint32_t a[4] = {pack2<T>(s[2 * kk][0], s[2 * kk][1]), pack2<T>(s[2 * kk][2], s[2 * kk][3]),
                             pack2<T>(s[2 * kk + 1][0], s[2 * kk + 1][1]),
                             pack2<T>(s[2 * kk + 1][2], s[2 * kk + 1][3])};
#pragma unroll
      for (int dt = 0; dt < DTILES; ++dt) {
        mma_b_rows<T, STRIDE>(o[dt], a, v_s, kk * 16, dt * 8, lane);
      }
    }
  }

  sum_a = quad_sum(sum_a);
  sum_b = quad_sum(sum_b);
  const float inv_a = output_factor(sum_a), inv_b = output_factor(sum_b);
  store_rows<T, D>(static_cast<unsigned short *>(p.out) + base, o, row_a, row_b, seq, t, inv_a, inv_b);
  if (p.lse != nullptr && t == 0) {
    if (row_a < seq) p.lse[head * seq + row_a] = max_a * kLn2 + logf(sum_a);
    if (row_b < seq) p.lse[head * seq + row_b] = max_b * kLn2 + logf(sum_b);
  }
}

// fp32 runs on the CUDA cores (tensor cores would round it to TF32); fp16 and bf16 on tensor cores:
// with wgmma and TMA on an H100/H200 (hopper_fwd.cuh), with mma.sync on other devices.
template <typename T, int D, bool CAUSAL>
int launch_fwd(const FwdParams &p, void *stream) {
  static_assert(D % kWarpSize == 0, "head dim must be a multiple of the warp size");
  cudaStream_t s = static_cast<cudaStream_t>(stream);
  if constexpr (std::is_same<T, float>::value) {
    const dim3 grid((p.seq + FwdTiles::kBlockM - 1) / FwdTiles::kBlockM, p.heads, p.batch);
    flash_fwd_kernel<T, D, CAUSAL><<<grid, FwdTiles::kThreads, 0, s>>>(p);
  } else {
    cudaError_t status;
    if (sm90::try_launch_fwd<T, D, CAUSAL>(p, s, &status)) {
      return static_cast<int>(status);
    }
    const dim3 grid((p.seq + MmaFwdTiles::kBlockM - 1) / MmaFwdTiles::kBlockM, p.heads, p.batch);
    flash_fwd_mma_kernel<T, D, CAUSAL><<<grid, MmaFwdTiles::kThreads, 0, s>>>(p);
  }
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
