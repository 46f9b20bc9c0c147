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
#include "mha_cuda/hopper_bwd.cuh"

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

// The same when out and dout are 16-byte aligned: a row in 16-byte pieces, a lane a piece of each,
// so that every load moves 16 bytes (one element a lane left the loads too small to keep up with
// the memory: at head dim 64 in fp16 it ran at half the bandwidth).
template <typename T, int D>
__global__ void __launch_bounds__(BwdTiles::kThreads) bwd_delta_kernel_16(BwdParams p, size_t rows) {
  constexpr int kLanes = D * sizeof(T) / 16, kElements = 16 / sizeof(T);
  static_assert(kLanes <= kWarpSize && kWarpSize % kLanes == 0, "a row's pieces fill part of a warp");
  const size_t row = (static_cast<size_t>(blockIdx.x) * BwdTiles::kThreads + threadIdx.x) / kLanes;
  const int piece = threadIdx.x % kLanes;
  float sum = 0.f;
  if (row < rows) {
    const uint4 o = static_cast<const uint4 *>(p.out)[row * kLanes + piece];
    const uint4 g = static_cast<const uint4 *>(p.dout)[row * kLanes + piece];
    const T *oe = reinterpret_cast<const T *>(&o), *ge = reinterpret_cast<const T *>(&g);
#pragma unroll
    for (int e = 0; e < kElements; ++e) sum = fmaf(to_float(oe[e]), to_float(ge[e]), sum);
  }
#pragma unroll
  for (int offset = kLanes / 2; offset > 0; offset /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, offset);
  if (row < rows && piece == 0) p.delta[row] = sum;
}

// s[i] = own1 . rows1[i] and dp[i] = own2 . rows2[i] over the D head dims, for N shared rows
// read as broadcasts (row stride D) against this lane's own two rows: one float4 of each own row
// feeds all N rows.
template <int D, int N>
__device__ __forceinline__ void dual_dots(float (&s)[N], float (&dp)[N], const float *own1, const float *own2,
                                          const float *rows1, const float *rows2) {
#pragma unroll
  for (int i = 0; i < N; ++i) s[i] = dp[i] = 0.f;
#pragma unroll 4
  for (int d = 0; d < D; d += 4) {
    const float4 a = load4(own1 + d), b = load4(own2 + d);
#pragma unroll
    for (int i = 0; i < N; ++i) {
      s[i] = dot4(a, load4(rows1 + i * D + d), s[i]);
      dp[i] = dot4(b, load4(rows2 + i * D + d), dp[i]);
    }
  }
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
    dual_dots<D>(s, dp, qr, dor, k_warp, v_warp);
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
  const int m0 = query_block<CAUSAL>() * BM;
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
    dual_dots<D>(s, dp, kr, vr, q_warp, do_warp);
    float ds[ROWS];
#pragma unroll
    for (int r = 0; r < ROWS; ++r) {
      const int row = m0 + warp * ROWS + r;
      const bool valid = row < seq && key < seq && (!CAUSAL || key <= row);
      const float prob = valid ? exp2f(s[r] * scale_log2 - lse2[r]) : 0.f;
      ds[r] = prob * (dp[r] - delta[r]);
    }

    // dQ += dS K: one load of each key's dims feeds every row.
    accumulate_broadcast<BN>(dq, ds, k_s, KS, lane);
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

// ---- fp16 / bf16 on tensor cores (mma.sync m16n8k16, float accumulators) ----
// The same two passes, FlashAttention-2 style. Scores come out of the mma in C fragments whose
// layout is that of an A fragment, so P and dS feed the next products straight from registers
// (rounded to the input type, as FlashAttention does). B operands are read from shared tiles:
// a pair of adjacent head dims is one 32-bit load; a pair of adjacent rows is two 16-bit loads.
struct MmaBwdTiles {
  static constexpr int kWarps = 4;
  static constexpr int kThreads = kWarps * kWarpSize;
  static constexpr int kKeys = kWarps * 16;  // dK/dV: keys per block, 16 per warp
  static constexpr int kQueryTile = 32;
  static constexpr int kRows = kWarps * 16;  // dQ: query rows per block, 16 per warp
  static constexpr int kKeyTile = 32;
};

template <int D>
constexpr size_t mma_dkdv_shared_bytes() {
  return 2 * (2 * MmaBwdTiles::kKeys + 2 * MmaBwdTiles::kQueryTile) * (D + 8) +
         sizeof(float) * 2 * MmaBwdTiles::kQueryTile;
}

template <int D>
constexpr size_t mma_dq_shared_bytes() {
  return 2 * (2 * MmaBwdTiles::kRows + 2 * MmaBwdTiles::kKeyTile) * (D + 8);
}

// The A fragment of rows [0, 16) x head dims [16 ks, 16 ks + 16) of a shared tile.
template <int STRIDE>
__device__ __forceinline__ void load_a(const unsigned short *tile, int ks, int g, int t, uint32_t (&a)[4]) {
  const unsigned short *r0 = tile + g * STRIDE + ks * 16 + 2 * t, *r1 = r0 + 8 * STRIDE;
  a[0] = *reinterpret_cast<const uint32_t *>(r0);
  a[1] = *reinterpret_cast<const uint32_t *>(r1);
  a[2] = *reinterpret_cast<const uint32_t *>(r0 + 8);
  a[3] = *reinterpret_cast<const uint32_t *>(r1 + 8);
}

// S = A1 B1^T and dP = A2 B2^T over the head dims: 16 rows of A (one warp's) against NT * 8
// rows of B, the A fragments and B pairs read from shared tiles.
template <typename T, int D, int NT>
__device__ __forceinline__ void dual_scores(float (&s)[NT][4], float (&dp)[NT][4], const unsigned short *a1,
                                            const unsigned short *a2, const unsigned short *b1,
                                            const unsigned short *b2, int lane) {
  const int g = lane / 4, t = lane % 4;
  constexpr int STRIDE = D + 8;
#pragma unroll
  for (int nt = 0; nt < NT; ++nt) {
#pragma unroll
    for (int i = 0; i < 4; ++i) s[nt][i] = dp[nt][i] = 0.f;
  }
#pragma unroll
  for (int ks = 0; ks < D / 16; ++ks) {
    uint32_t f1[4], f2[4];
    load_a<STRIDE>(a1, ks, g, t, f1);
    load_a<STRIDE>(a2, ks, g, t, f2);
#pragma unroll
    for (int nt = 0; nt < NT; ++nt) {
      mma_b_cols<T, STRIDE>(s[nt], f1, b1, nt * 8, ks, lane);
      mma_b_cols<T, STRIDE>(dp[nt], f2, b2, nt * 8, ks, lane);
    }
  }
}

// Two C tiles of 8 columns as the A fragment of 16 columns.
template <typename T>
__device__ __forceinline__ void as_a(const float (&lo)[4], const float (&hi)[4], uint32_t (&a)[4]) {
  a[0] = pack2<T>(lo[0], lo[1]);
  a[1] = pack2<T>(lo[2], lo[3]);
  a[2] = pack2<T>(hi[0], hi[1]);
  a[3] = pack2<T>(hi[2], hi[3]);
}

template <typename T, int D, bool CAUSAL>
__global__ void __launch_bounds__(MmaBwdTiles::kThreads) bwd_dkdv_mma_kernel(BwdParams p) {
  constexpr int BN = MmaBwdTiles::kKeys, BM = MmaBwdTiles::kQueryTile, STRIDE = D + 8;
  constexpr int DTILES = D / 8, QTILES = BM / 8;
  extern __shared__ __align__(16) unsigned char smem_bytes[];
  auto *k_s = reinterpret_cast<unsigned short *>(smem_bytes);  // [BN][STRIDE]
  unsigned short *v_s = k_s + BN * STRIDE;                      // [BN][STRIDE]
  unsigned short *q_s = v_s + BN * STRIDE;                      // [BM][STRIDE]
  unsigned short *do_s = q_s + BM * STRIDE;                     // [BM][STRIDE]
  auto *lse_s = reinterpret_cast<float *>(do_s + BM * STRIDE);  // [BM], log2 domain
  float *delta_s = lse_s + BM;                                  // [BM]

  const int warp = threadIdx.x / kWarpSize, lane = threadIdx.x % kWarpSize, g = lane / 4, t = lane % 4;
  const int seq = p.seq;
  const size_t head = static_cast<size_t>(blockIdx.z) * p.heads + blockIdx.y;
  const size_t base = head * seq * D;
  const auto *q = static_cast<const unsigned short *>(p.q) + base;
  const auto *k = static_cast<const unsigned short *>(p.k) + base;
  const auto *v = static_cast<const unsigned short *>(p.v) + base;
  const auto *dout = static_cast<const unsigned short *>(p.dout) + base;
  const float scale_log2 = p.scale * kLog2e;
  const int n0 = blockIdx.x * BN;
  const int key_a = n0 + warp * 16 + g, key_b = key_a + 8;
  const unsigned short *k_w = k_s + warp * 16 * STRIDE, *v_w = v_s + warp * 16 * STRIDE;

  copy_tile16<D>(k_s, k, n0, BN, seq);
  copy_tile16<D>(v_s, v, n0, BN, seq);

  float dk[DTILES][4], dv[DTILES][4];
#pragma unroll
  for (int dt = 0; dt < DTILES; ++dt) {
#pragma unroll
    for (int i = 0; i < 4; ++i) dk[dt][i] = dv[dt][i] = 0.f;
  }

  const int m_begin = CAUSAL ? (n0 / BM) * BM : 0;
  for (int m0 = m_begin; m0 < seq; m0 += BM) {
    __syncthreads();
    copy_tile16<D>(q_s, q, m0, BM, seq);
    copy_tile16<D>(do_s, dout, m0, BM, seq);
    if (threadIdx.x < BM) {
      const int row = m0 + threadIdx.x;
      lse_s[threadIdx.x] = row < seq ? p.lse[head * seq + row] * kLog2e : INFINITY;
      delta_s[threadIdx.x] = row < seq ? p.delta[head * seq + row] : 0.f;
    }
    __syncthreads();

    // S^T = K Q^T and dP^T = V dO^T for the warp's 16 keys x the tile's queries.
    float s[QTILES][4], dp[QTILES][4];
    dual_scores<T, D>(s, dp, k_w, v_w, q_s, do_s, lane);
    // P^T and dS^T in place: rows are keys (a: g, b: g + 8), columns queries.
#pragma unroll
    for (int qt = 0; qt < QTILES; ++qt) {
#pragma unroll
      for (int j = 0; j < 2; ++j) {
        const int local = qt * 8 + 2 * t + j, query = m0 + local;
        const float lse2 = lse_s[local], delta = delta_s[local];
        const bool valid_a = query < seq && key_a < seq && (!CAUSAL || key_a <= query);
        const bool valid_b = query < seq && key_b < seq && (!CAUSAL || key_b <= query);
        const float pa = valid_a ? exp2f(s[qt][j] * scale_log2 - lse2) : 0.f;
        const float pb = valid_b ? exp2f(s[qt][2 + j] * scale_log2 - lse2) : 0.f;
        s[qt][j] = pa;
        s[qt][2 + j] = pb;
        dp[qt][j] = pa * (dp[qt][j] - delta);
        dp[qt][2 + j] = pb * (dp[qt][2 + j] - delta);
      }
    }
    // dV += P^T dO and dK += dS^T Q: k runs over the tile's queries.
#pragma unroll
    for (int kk = 0; kk < BM / 16; ++kk) {
      uint32_t pa[4], da[4];
      as_a<T>(s[2 * kk], s[2 * kk + 1], pa);
      as_a<T>(dp[2 * kk], dp[2 * kk + 1], da);
#pragma unroll
      for (int dt = 0; dt < DTILES; ++dt) {
        mma_b_rows<T, STRIDE>(dv[dt], pa, do_s, kk * 16, dt * 8, lane);
        mma_b_rows<T, STRIDE>(dk[dt], da, q_s, kk * 16, dt * 8, lane);
      }
    }
  }

  store_rows<T, D>(static_cast<unsigned short *>(p.dk) + base, dk, key_a, key_b, seq, t, p.scale, p.scale);
  store_rows<T, D>(static_cast<unsigned short *>(p.dv) + base, dv, key_a, key_b, seq, t, 1.f, 1.f);
}

template <typename T, int D, bool CAUSAL>
__global__ void __launch_bounds__(MmaBwdTiles::kThreads) bwd_dq_mma_kernel(BwdParams p) {
  constexpr int BM = MmaBwdTiles::kRows, BN = MmaBwdTiles::kKeyTile, STRIDE = D + 8;
  constexpr int DTILES = D / 8, KTILES = BN / 8;
  extern __shared__ __align__(16) unsigned char smem_bytes[];
  auto *q_s = reinterpret_cast<unsigned short *>(smem_bytes);  // [BM][STRIDE]
  unsigned short *do_s = q_s + BM * STRIDE;                     // [BM][STRIDE]
  unsigned short *k_s = do_s + BM * STRIDE;                     // [BN][STRIDE]
  unsigned short *v_s = k_s + BN * STRIDE;                      // [BN][STRIDE]

  const int warp = threadIdx.x / kWarpSize, lane = threadIdx.x % kWarpSize, g = lane / 4, t = lane % 4;
  const int seq = p.seq;
  const size_t head = static_cast<size_t>(blockIdx.z) * p.heads + blockIdx.y;
  const size_t base = head * seq * D;
  const auto *q = static_cast<const unsigned short *>(p.q) + base;
  const auto *k = static_cast<const unsigned short *>(p.k) + base;
  const auto *v = static_cast<const unsigned short *>(p.v) + base;
  const auto *dout = static_cast<const unsigned short *>(p.dout) + base;
  const float scale_log2 = p.scale * kLog2e;
  const int m0 = query_block<CAUSAL>() * BM;
  const int row_a = m0 + warp * 16 + g, row_b = row_a + 8;
  const unsigned short *q_w = q_s + warp * 16 * STRIDE, *do_w = do_s + warp * 16 * STRIDE;
  const float lse_a = row_a < seq ? p.lse[head * seq + row_a] * kLog2e : INFINITY;
  const float lse_b = row_b < seq ? p.lse[head * seq + row_b] * kLog2e : INFINITY;
  const float delta_a = row_a < seq ? p.delta[head * seq + row_a] : 0.f;
  const float delta_b = row_b < seq ? p.delta[head * seq + row_b] : 0.f;

  copy_tile16<D>(q_s, q, m0, BM, seq);
  copy_tile16<D>(do_s, dout, m0, BM, seq);

  float dq[DTILES][4];
#pragma unroll
  for (int dt = 0; dt < DTILES; ++dt) dq[dt][0] = dq[dt][1] = dq[dt][2] = dq[dt][3] = 0.f;

  const int kv_end = CAUSAL ? min(seq, m0 + BM) : seq;
  for (int n0 = 0; n0 < kv_end; n0 += BN) {
    __syncthreads();
    copy_tile16<D>(k_s, k, n0, BN, seq);
    copy_tile16<D>(v_s, v, n0, BN, seq);
    __syncthreads();

    float s[KTILES][4], dp[KTILES][4];
    dual_scores<T, D>(s, dp, q_w, do_w, k_s, v_s, lane);
    // dS in place of S: rows are queries (a: g, b: g + 8), columns keys.
#pragma unroll
    for (int kt = 0; kt < KTILES; ++kt) {
#pragma unroll
      for (int j = 0; j < 2; ++j) {
        const int key = n0 + kt * 8 + 2 * t + j;
        const bool valid_a = row_a < seq && key < seq && (!CAUSAL || key <= row_a);
        const bool valid_b = row_b < seq && key < seq && (!CAUSAL || key <= row_b);
        const float pa = valid_a ? exp2f(s[kt][j] * scale_log2 - lse_a) : 0.f;
        const float pb = valid_b ? exp2f(s[kt][2 + j] * scale_log2 - lse_b) : 0.f;
        s[kt][j] = pa * (dp[kt][j] - delta_a);
        s[kt][2 + j] = pb * (dp[kt][2 + j] - delta_b);
      }
    }
    // dQ += dS K: k runs over the tile's keys.
#pragma unroll
    for (int kk = 0; kk < BN / 16; ++kk) {
      uint32_t da[4];
      as_a<T>(s[2 * kk], s[2 * kk + 1], da);
#pragma unroll
      for (int dt = 0; dt < DTILES; ++dt) mma_b_rows<T, STRIDE>(dq[dt], da, k_s, kk * 16, dt * 8, lane);
    }
  }

  store_rows<T, D>(static_cast<unsigned short *>(p.dq) + base, dq, row_a, row_b, seq, t, p.scale, p.scale);
}

// One block per `rows_per_block` rows (keys or queries) of every (batch, head), with `bytes` of
// dynamic shared memory.
template <typename Kernel>
inline cudaError_t launch_tiled(Kernel kernel, const BwdParams &p, int rows_per_block, int threads, size_t bytes,
                                cudaStream_t stream) {
  cudaError_t status = allow_shared_memory(kernel, bytes);
  if (status != cudaSuccess) return status;
  const dim3 grid((p.seq + rows_per_block - 1) / rows_per_block, p.heads, p.batch);
  kernel<<<grid, threads, bytes, stream>>>(p);
  return cudaGetLastError();
}

// fp32 on the CUDA cores; fp16 and bf16 on tensor cores.
template <typename T, int D, bool CAUSAL>
int launch_bwd(const BwdParams &p, void *stream_handle) {
  static_assert(D % kWarpSize == 0, "head dim must be a multiple of the warp size");
  cudaStream_t stream = static_cast<cudaStream_t>(stream_handle);
  const size_t rows = static_cast<size_t>(p.batch) * p.heads * p.seq;
  if ((reinterpret_cast<uintptr_t>(p.out) | reinterpret_cast<uintptr_t>(p.dout)) % 16 == 0) {
    constexpr size_t kRowsPerBlock = BwdTiles::kThreads / (D * sizeof(T) / 16);
    bwd_delta_kernel_16<T, D>
        <<<static_cast<unsigned>((rows + kRowsPerBlock - 1) / kRowsPerBlock), BwdTiles::kThreads, 0, stream>>>(p, rows);
  } else {
    const unsigned delta_blocks = static_cast<unsigned>((rows + BwdTiles::kWarps - 1) / BwdTiles::kWarps);
    bwd_delta_kernel<T, D><<<delta_blocks, BwdTiles::kThreads, 0, stream>>>(p, rows);
  }

  cudaError_t status;
  if constexpr (std::is_same<T, float>::value) {
    status = launch_tiled(bwd_dkdv_kernel<T, D, CAUSAL>, p, BwdTiles::kKeys, BwdTiles::kThreads,
                          dkdv_shared_bytes<D>(), stream);
    if (status == cudaSuccess) {
      status = launch_tiled(bwd_dq_kernel<T, D, CAUSAL>, p, BwdTiles::kRows, BwdTiles::kThreads,
                            dq_shared_bytes<D>(), stream);
    }
  } else if (sm90::bwd::try_launch_fused<T, D, CAUSAL>(p, stream, &status)) {
    // on an H100/H200: dK, dV and dQ in one sm_90a pass (hopper_bwd.cuh)
  } else {  // else each pass runs its sm_90a kernel when it can (MHA_DETERMINISTIC), or the mma.sync one
    if (!sm90::bwd::try_launch_dkdv<T, D, CAUSAL>(p, stream, &status)) {
      status = launch_tiled(bwd_dkdv_mma_kernel<T, D, CAUSAL>, p, MmaBwdTiles::kKeys, MmaBwdTiles::kThreads,
                            mma_dkdv_shared_bytes<D>(), stream);
    }
    if (status == cudaSuccess && !sm90::bwd::try_launch_dq<T, D, CAUSAL>(p, stream, &status)) {
      status = launch_tiled(bwd_dq_mma_kernel<T, D, CAUSAL>, p, MmaBwdTiles::kRows, MmaBwdTiles::kThreads,
                            mma_dq_shared_bytes<D>(), stream);
    }
  }
  return static_cast<int>(status);
}

}  // namespace mha::cuda

#define MHA_DEFINE_BWD(T, D, C)                                                \
  namespace mha::cuda {                                                        \
  int bwd_##T##_d##D##_c##C(const BwdParams &params, void *stream) {          \
    return launch_bwd<T, D, (C) != 0>(params, stream);                        \
  }                                                                            \
  }

#endif
