// The backward on Hopper (sm_90a), fp16 and bf16, head dim 64 and 128: the two deterministic passes
// of flash_bwd.cuh (every output written by exactly one block, no atomics), each on wgmma with
// operands that the TMA unit loads, a producer warp and two consumer warpgroups (hopper_fwd.cuh
// has the scheme; hopper_common.cuh the layouts and helpers). delta = rowsum(dO * O) comes from
// flash_bwd.cuh's first kernel.
//  - dK, dV: a block owns 128 keys (64 per consumer) with their K and V rows in shared memory and
//    walks the queries in tiles of 64: S^T = K Q^T and dP^T = V dO^T from shared memory, then
//    P^T = exp(S^T - lse) and dS^T = P^T (dP^T - delta) in registers, where they are the A
//    operands of dV += P^T dO and dK += dS^T Q (Q and dO read N-major). The producer stages each
//    query tile's lse and delta next to its Q and dO.
//  - dQ: a block owns 128 queries (64 per consumer) with Q and dO in shared memory and walks the
//    keys in tiles of 64: S = Q K^T and dP = dO V^T, dS = P (dP - delta), dQ += dS K (K N-major).
// Both passes overlap inside a consumer warpgroup: the first two products of tile t+1 are issued
// ahead of the last ones of tile t, and the element-wise work of t+1 (P, dS) runs while the tensor
// cores finish tile t.
// Chosen at run time exactly like the forward (compute capability 9.0, sm_90a code present,
// MHA_DISABLE_SM90 unset); each pass falls back to flash_bwd.cuh's on its own.
#ifndef MHA_CUDA_HOPPER_BWD_CUH
#define MHA_CUDA_HOPPER_BWD_CUH

#include "mha_cuda/hopper_common.cuh"

namespace mha::cuda::sm90::bwd {

constexpr int kConsumers = 2, kThreads = 128 * (kConsumers + 1), kStages = 4;
constexpr int kOwnRows = 64 * kConsumers;  // keys (dK/dV pass) or queries (dQ pass) of a block
constexpr int kTileRows = 64;              // queries (dK/dV pass) or keys (dQ pass) of a streamed tile

// Whether the dK/dV pass overlaps too: at head dim 128 its accumulators (dK and dV), the next tile's
// S^T and dP^T and this tile's operands would all be live at once, past the 240 registers a
// consumer has, and the spills cost more than the overlap gains.
// (Measured on an H100: overlapped at 128 with its spills, the pass took 1.19x as long.)
template <int D>
constexpr bool kOverlapDkdv = D == 64;

// Four stages: a stage is held from the first products of its tile until the last ones finish,
// which with the overlap spans two iterations, and the loads need one more iteration ahead.
template <int D>
struct Layout {
  static constexpr int kOwnBytes = kOwnRows * D * 2, kTileBytes = kTileRows * D * 2;
  static constexpr int kStageBytes = 2 * kTileBytes + 2 * kTileRows * 4;  // two tiles, then lse and delta
  static constexpr int kTilesEnd = 2 * kOwnBytes + kStages * kStageBytes;
  static constexpr int kSmem = kTilesEnd + 1024 + 128;  // alignment slack, barriers
  static_assert(kSmem <= 227 * 1024, "the stages must fit in shared memory");
};

struct Barriers {
  uint64_t own_full, full[kStages], empty[kStages];
};

struct KernelArgs {
  const void *own_a, *own_b;  // the owned tensors, for consumers that read their rows into registers
  const float *lse, *delta;
  void *out_a, *out_b;  // dK and dV, or dQ and unused
  int seq;
  float scale, scale_log2;
};

#if defined(MHA_SM90_CODE)
// Block-level setup shared by both passes: shared memory carved into the two owned tiles and the
// stages, barriers initialised.
template <int D>
struct Shared {
  unsigned char *own_a, *own_b;
  unsigned char *stage_base;
  Barriers *bar;

  __device__ __forceinline__ Shared(unsigned char *raw) {
    unsigned char *base =
        reinterpret_cast<unsigned char *>((reinterpret_cast<uintptr_t>(raw) + 1023) & ~uintptr_t(1023));
    own_a = base;
    own_b = base + Layout<D>::kOwnBytes;
    stage_base = base + 2 * Layout<D>::kOwnBytes;
    bar = reinterpret_cast<Barriers *>(base + Layout<D>::kTilesEnd);
    if (threadIdx.x == 0) {
      bar_init(&bar->own_full, 1);
      for (int s = 0; s < kStages; ++s) {
        bar_init(&bar->full[s], 1);
        bar_init(&bar->empty[s], kConsumers * 128);
      }
      bar_init_fence();
    }
    __syncthreads();
  }
  __device__ __forceinline__ unsigned char *tile_a(int stage) const {
    return stage_base + stage * Layout<D>::kStageBytes;
  }
  __device__ __forceinline__ unsigned char *tile_b(int stage) const {
    return tile_a(stage) + Layout<D>::kTileBytes;
  }
  __device__ __forceinline__ float *lse(int stage) const {
    return reinterpret_cast<float *>(tile_a(stage) + 2 * Layout<D>::kTileBytes);
  }
  __device__ __forceinline__ float *delta(int stage) const { return lse(stage) + kTileRows; }
};

// The producer warpgroup: it gives its registers to the consumers, and its first warp loads the two
// owned tiles once (when `load_own`: unless the consumers hold them in registers), then for each
// streamed tile t (rows r0(t)) its two tiles and, when
// `stage_rows`, the tile rows' lse (log2 units) and delta into the stage.
template <int D, typename RowOf>
__device__ __forceinline__ void produce(const Shared<D> &sm, const CUtensorMap *own_a, const CUtensorMap *own_b,
                                        const CUtensorMap *tile_a, const CUtensorMap *tile_b, int own0, int tiles,
                                        RowOf row_of, int head, const KernelArgs &args, bool stage_rows,
                                        bool load_own) {
  producer_registers();
  if (threadIdx.x >= kWarpSize) {
    return;
  }
  const int lane = threadIdx.x % kWarpSize;
  if (lane == 0 && load_own) {
    bar_expect(&sm.bar->own_full, 2 * Layout<D>::kOwnBytes);
    tma_load_tile<D>(sm.own_a, kOwnRows, own_a, &sm.bar->own_full, own0, head);
    tma_load_tile<D>(sm.own_b, kOwnRows, own_b, &sm.bar->own_full, own0, head);
  }
  const size_t rows_before = static_cast<size_t>(head) * args.seq;
  for (int t = 0; t < tiles; ++t) {
    const int stage = t % kStages, r0 = row_of(t);
    if (t >= kStages) bar_wait(&sm.bar->empty[stage], ((t / kStages) & 1) ^ 1);
    if (stage_rows) {
      for (int i = lane; i < kTileRows; i += kWarpSize) {
        const int row = r0 + i;
        sm.lse(stage)[i] = row < args.seq ? args.lse[rows_before + row] * kLog2e : INFINITY;
        sm.delta(stage)[i] = row < args.seq ? args.delta[rows_before + row] : 0.f;
      }
      __syncwarp();
    }
    if (lane == 0) {  // its arrival releases the staged values with the tiles
      bar_expect(&sm.bar->full[stage], 2 * Layout<D>::kTileBytes);
      tma_load_tile<D>(sm.tile_a(stage), kTileRows, tile_a, &sm.bar->full[stage], r0, head);
      tma_load_tile<D>(sm.tile_b(stage), kTileRows, tile_b, &sm.bar->full[stage], r0, head);
    }
  }
}

// Where a consumer thread works: its warpgroup's 64 owned rows start at `first`, its two
// accumulator rows are row0 and row0 + 8, and a_rows / b_rows are those 64 rows of the two owned
// tiles. Constructed first thing in the consumers, it also takes the registers the producer gave.
template <int D>
struct Place {
  int lane, first, row0;
  const unsigned char *a_rows, *b_rows;

  __device__ __forceinline__ Place(const Shared<D> &sm, int own0) {
    consumer_registers();
    const int consumer = threadIdx.x / 128 - 1, warp = threadIdx.x % 128 / kWarpSize;
    lane = threadIdx.x % kWarpSize;
    first = own0 + consumer * 64;
    row0 = first + warp * 16 + lane / 4;
    a_rows = sm.own_a + consumer * 64 * 128;
    b_rows = sm.own_b + consumer * 64 * 128;
  }
};

// The first two products of a streamed tile, x = A1 B1^T and y = A2 B2^T over the head dims, each A
// the consumer's 64 rows of an owned tensor and each B a tile, issued as one group. With
// IN_REGISTERS the consumer holds its A rows in registers (read from global memory once), so that
// the products read only B from shared memory: at 64 columns, operands from shared memory on both
// sides alone take all of its bandwidth. Otherwise they come from the owned tiles.
template <typename T, int D, bool IN_REGISTERS>
struct FirstProducts {
  uint32_t a1[IN_REGISTERS ? D / 16 : 1][4], a2[IN_REGISTERS ? D / 16 : 1][4];
  const unsigned char *a1_rows, *a2_rows;

  __device__ __forceinline__ FirstProducts(const Shared<D> &sm, const Place<D> &at, const KernelArgs &args,
                                           int head)
      : a1_rows(at.a_rows), a2_rows(at.b_rows) {
    if constexpr (IN_REGISTERS) {
      const size_t offset = static_cast<size_t>(head) * args.seq * D;
      load_operand<T, D>(a1, static_cast<const T *>(args.own_a) + offset, at.row0, args.seq);
      load_operand<T, D>(a2, static_cast<const T *>(args.own_b) + offset, at.row0, args.seq);
    } else {
      bar_wait(&sm.bar->own_full, 0);
    }
  }
  __device__ __forceinline__ void issue(float (&x)[32], const unsigned char *b1, float (&y)[32],
                                        const unsigned char *b2) const {
    if constexpr (IN_REGISTERS) {
      issue_rk<T, D, kTileRows>(x, a1, b1);
      issue_rk<T, D, kTileRows>(y, a2, b2);
    } else {
      issue_ss<T, D, kTileRows>(x, a1_rows, kOwnRows * 128, b1);
      issue_ss<T, D, kTileRows>(y, a2_rows, kOwnRows * 128, b2);
    }
    wgmma_commit();
  }
};

template <typename T, int D, bool CAUSAL>
__global__ void MHA_SM90_LAUNCH_BOUNDS(kThreads)
    dkdv_kernel(const __grid_constant__ CUtensorMap tk, const __grid_constant__ CUtensorMap tv,
                const __grid_constant__ CUtensorMap tq, const __grid_constant__ CUtensorMap tdo,
                const KernelArgs args) {
  extern __shared__ unsigned char raw[];
  const Shared<D> sm(raw);  // own_a: K, own_b: V; tile_a: Q, tile_b: dO
  constexpr bool kOwnInRegisters = kOverlapDkdv<D>;  // room for K and V rows only beside the overlap's needs
  const int seq = args.seq, n0 = blockIdx.x * kOwnRows;  // the heaviest causal blocks (first keys) come first
  const int head = blockIdx.z * gridDim.y + blockIdx.y;
  const int q_begin = CAUSAL ? n0 / kTileRows * kTileRows : 0;
  const int tiles = (seq - q_begin + kTileRows - 1) / kTileRows;
  if (threadIdx.x < 128) {
    produce<D>(sm, &tk, &tv, &tq, &tdo, n0, tiles, [&](int t) { return q_begin + t * kTileRows; }, head, args, true,
               !kOwnInRegisters);
    return;
  }
  const Place<D> at(sm, n0);  // rows are keys; a_rows: K, b_rows: V
  const int key0 = at.row0, key1 = key0 + 8;

  float dk[D / 2], dv[D / 2];
#pragma unroll
  for (int i = 0; i < D / 2; ++i) dk[i] = dv[i] = 0.f;
  const FirstProducts<T, D, kOwnInRegisters> first(sm, at, args, head);  // S^T = K Q^T, dP^T = V dO^T

  // P^T and dS^T of tile t, in place of S^T and dP^T (rows are keys, columns the tile's queries).
  auto elementwise = [&](float (&st)[32], float (&dpt)[32], int t) {
    const int stage = t % kStages, q0 = q_begin + t * kTileRows;
    const bool mask = q0 + kTileRows > seq || (CAUSAL && at.first + 63 > q0);
    const float *lse = sm.lse(stage), *delta = sm.delta(stage);
#pragma unroll
    for (int j = 0; j < kTileRows / 8; ++j) {
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int col = 8 * j + 2 * (at.lane % 4) + e, query = q0 + col;
        // Past seq, lse is +inf and P^T is 0.
        float p0 = fast_exp2(st[4 * j + e] * args.scale_log2 - lse[col]);
        float p1 = fast_exp2(st[4 * j + 2 + e] * args.scale_log2 - lse[col]);
        if (mask && CAUSAL) {
          p0 = key0 <= query ? p0 : 0.f;
          p1 = key1 <= query ? p1 : 0.f;
        }
        st[4 * j + e] = p0;
        st[4 * j + 2 + e] = p1;
        dpt[4 * j + e] = p0 * (dpt[4 * j + e] - delta[col]);
        dpt[4 * j + 2 + e] = p1 * (dpt[4 * j + 2 + e] - delta[col]);
      }
    }
  };
  auto wait_tile = [&](int t) { bar_wait(&sm.bar->full[t % kStages], (t / kStages) & 1); };

  float st[32], dpt[32];  // S^T and dP^T of the newest tile
  if constexpr (!kOverlapDkdv<D>) {
    for (int t = 0; t < tiles; ++t) {
      const int stage = t % kStages;
      uint32_t p_op[kTileRows / 16][4], ds_op[kTileRows / 16][4];
      wait_tile(t);
      wgmma_fence();
      first.issue(st, sm.tile_a(stage), dpt, sm.tile_b(stage));
      wgmma_wait<0>();
      pin(st);
      pin(dpt);
      elementwise(st, dpt, t);
      to_operand<T, kTileRows>(p_op, st);
      to_operand<T, kTileRows>(ds_op, dpt);
      wgmma_fence();
      issue_rs<T, kTileRows, D>(dv, p_op, sm.tile_b(stage));   // dV += P^T dO
      issue_rs<T, kTileRows, D>(dk, ds_op, sm.tile_a(stage));  // dK += dS^T Q
      wgmma_commit();
      wgmma_wait<0>();
      pin(dv);
      pin(dk);
      bar_arrive(&sm.bar->empty[stage]);
    }
  } else {
    uint32_t p_op[kTileRows / 16][4], ds_op[kTileRows / 16][4];  // P^T and dS^T of the tile before
    wait_tile(0);
    wgmma_fence();
    first.issue(st, sm.tile_a(0), dpt, sm.tile_b(0));
    wgmma_wait<0>();
    pin(st);
    pin(dpt);
    elementwise(st, dpt, 0);
    to_operand<T, kTileRows>(p_op, st);
    to_operand<T, kTileRows>(ds_op, dpt);
    for (int t = 0; t + 1 < tiles; ++t) {
      const int stage = t % kStages, next = (t + 1) % kStages;
      wait_tile(t + 1);
      wgmma_fence();
      first.issue(st, sm.tile_a(next), dpt, sm.tile_b(next));
      issue_rs<T, kTileRows, D>(dv, p_op, sm.tile_b(stage));   // dV += P^T dO
      issue_rs<T, kTileRows, D>(dk, ds_op, sm.tile_a(stage));  // dK += dS^T Q
      wgmma_commit();
      wgmma_wait<1>();  // S^T, dP^T of tile t+1 are ready; dV, dK of tile t still run
      pin(st);
      pin(dpt);
      elementwise(st, dpt, t + 1);
      wgmma_wait<0>();
      pin(dv);
      pin(dk);
      bar_arrive(&sm.bar->empty[stage]);
      to_operand<T, kTileRows>(p_op, st);
      to_operand<T, kTileRows>(ds_op, dpt);
    }
    wgmma_fence();
    issue_rs<T, kTileRows, D>(dv, p_op, sm.tile_b((tiles - 1) % kStages));
    issue_rs<T, kTileRows, D>(dk, ds_op, sm.tile_a((tiles - 1) % kStages));
    wgmma_commit();
    wgmma_wait<0>();
    pin(dv);
    pin(dk);
  }
  const size_t rows_before = static_cast<size_t>(head) * seq;
  store_accumulator<T, D>(args.out_a, dk, rows_before, key0, seq, args.scale, args.scale);
  store_accumulator<T, D>(args.out_b, dv, rows_before, key0, seq, 1.f, 1.f);
}

template <typename T, int D, bool CAUSAL>
__global__ void MHA_SM90_LAUNCH_BOUNDS(kThreads)
    dq_kernel(const __grid_constant__ CUtensorMap tq, const __grid_constant__ CUtensorMap tdo,
              const __grid_constant__ CUtensorMap tk, const __grid_constant__ CUtensorMap tv,
              const KernelArgs args) {
  extern __shared__ unsigned char raw[];
  const Shared<D> sm(raw);  // own_a: Q, own_b: dO; tile_a: K, tile_b: V
  constexpr bool kOwnInRegisters = true;
  const int seq = args.seq, m0 = query_block<CAUSAL>() * kOwnRows;
  const int head = blockIdx.z * gridDim.y + blockIdx.y;
  const int kv_end = CAUSAL ? min(seq, m0 + kOwnRows) : seq;
  const int tiles = (kv_end + kTileRows - 1) / kTileRows;
  if (threadIdx.x < 128) {
    produce<D>(sm, &tq, &tdo, &tk, &tv, m0, tiles, [](int t) { return t * kTileRows; }, head, args, false,
               !kOwnInRegisters);
    return;
  }
  const Place<D> at(sm, m0);  // rows are queries; a_rows: Q, b_rows: dO
  const int row0 = at.row0, row1 = row0 + 8;
  const size_t rows_before = static_cast<size_t>(head) * seq;
  const float lse0 = row0 < seq ? args.lse[rows_before + row0] * kLog2e : INFINITY;
  const float lse1 = row1 < seq ? args.lse[rows_before + row1] * kLog2e : INFINITY;
  const float delta0 = row0 < seq ? args.delta[rows_before + row0] : 0.f;
  const float delta1 = row1 < seq ? args.delta[rows_before + row1] : 0.f;

  float dq[D / 2];
#pragma unroll
  for (int i = 0; i < D / 2; ++i) dq[i] = 0.f;
  const FirstProducts<T, D, kOwnInRegisters> first(sm, at, args, head);  // S = Q K^T, dP = dO V^T

  // dS of tile t in place of S (rows are queries, columns the tile's keys); dp is used up.
  auto elementwise = [&](float (&s)[32], float (&dp)[32], int t) {
    const int n0 = t * kTileRows;
    const bool mask = n0 + kTileRows > seq || (CAUSAL && n0 + kTileRows - 1 > at.first);
#pragma unroll
    for (int j = 0; j < kTileRows / 8; ++j) {
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int key = n0 + 8 * j + 2 * (at.lane % 4) + e;
        float p0 = fast_exp2(s[4 * j + e] * args.scale_log2 - lse0);
        float p1 = fast_exp2(s[4 * j + 2 + e] * args.scale_log2 - lse1);
        if (mask) {
          p0 = key < seq && (!CAUSAL || key <= row0) ? p0 : 0.f;
          p1 = key < seq && (!CAUSAL || key <= row1) ? p1 : 0.f;
        }
        s[4 * j + e] = p0 * (dp[4 * j + e] - delta0);
        s[4 * j + 2 + e] = p1 * (dp[4 * j + 2 + e] - delta1);
      }
    }
  };
  auto wait_tile = [&](int t) { bar_wait(&sm.bar->full[t % kStages], (t / kStages) & 1); };

  float s[32], dp[32];                 // S and dP of the newest tile
  uint32_t ds_op[kTileRows / 16][4];  // dS of the tile before
  wait_tile(0);
  wgmma_fence();
  first.issue(s, sm.tile_a(0), dp, sm.tile_b(0));
  wgmma_wait<0>();
  pin(s);
  pin(dp);
  elementwise(s, dp, 0);
  to_operand<T, kTileRows>(ds_op, s);
  for (int t = 0; t + 1 < tiles; ++t) {
    const int stage = t % kStages, next = (t + 1) % kStages;
    wait_tile(t + 1);
    wgmma_fence();
    first.issue(s, sm.tile_a(next), dp, sm.tile_b(next));
    issue_rs<T, kTileRows, D>(dq, ds_op, sm.tile_a(stage));  // dQ += dS K
    wgmma_commit();
    wgmma_wait<1>();  // S, dP of tile t+1 are ready; dQ of tile t still runs
    pin(s);
    pin(dp);
    elementwise(s, dp, t + 1);
    wgmma_wait<0>();
    pin(dq);
    bar_arrive(&sm.bar->empty[stage]);
    to_operand<T, kTileRows>(ds_op, s);
  }
  wgmma_fence();
  issue_rs<T, kTileRows, D>(dq, ds_op, sm.tile_a((tiles - 1) % kStages));
  wgmma_commit();
  wgmma_wait<0>();
  pin(dq);
  store_accumulator<T, D>(args.out_a, dq, rows_before, row0, seq, args.scale, args.scale);
}
#else
template <typename T, int D, bool CAUSAL>
__global__ void MHA_SM90_LAUNCH_BOUNDS(kThreads)
    dkdv_kernel(const __grid_constant__ CUtensorMap, const __grid_constant__ CUtensorMap,
                const __grid_constant__ CUtensorMap, const __grid_constant__ CUtensorMap, const KernelArgs) {}
template <typename T, int D, bool CAUSAL>
__global__ void MHA_SM90_LAUNCH_BOUNDS(kThreads)
    dq_kernel(const __grid_constant__ CUtensorMap, const __grid_constant__ CUtensorMap,
              const __grid_constant__ CUtensorMap, const __grid_constant__ CUtensorMap, const KernelArgs) {}
#endif  // MHA_SM90_CODE

// Runs a pass on the tensors (a, b: owned rows; c, d: streamed tiles) when the sm_90a kernel
// applies; false, having launched nothing, when it does not.
template <typename T, int D, auto *KERNEL>
bool try_pass(const BwdParams &p, const void *a, const void *b, const void *c, const void *d, void *out_a,
              void *out_b, cudaStream_t stream, cudaError_t *status) {
  const int heads_total = p.batch * p.heads;
  CUtensorMap ta, tb, tc, td;
  if (!usable_on_current_device<KERNEL, Layout<D>::kSmem, kThreads>() ||
      !tensor_map<T, D>(&ta, a, heads_total, p.seq, kOwnRows) ||
      !tensor_map<T, D>(&tb, b, heads_total, p.seq, kOwnRows) ||
      !tensor_map<T, D>(&tc, c, heads_total, p.seq, kTileRows) ||
      !tensor_map<T, D>(&td, d, heads_total, p.seq, kTileRows)) {
    return false;
  }
  const dim3 grid((p.seq + kOwnRows - 1) / kOwnRows, p.heads, p.batch);
  KERNEL<<<grid, kThreads, Layout<D>::kSmem, stream>>>(
      ta, tb, tc, td, KernelArgs{a, b, p.lse, p.delta, out_a, out_b, p.seq, p.scale, p.scale * kLog2e});
  *status = cudaGetLastError();
  return true;
}

template <typename T, int D, bool CAUSAL>
bool try_launch_dkdv(const BwdParams &p, cudaStream_t stream, cudaError_t *status) {
  static_assert(D == 64 || D == 128, "sm_90a instances exist for head dims 64 and 128");
  return try_pass<T, D, dkdv_kernel<T, D, CAUSAL>>(p, p.k, p.v, p.q, p.dout, p.dk, p.dv, stream, status);
}

template <typename T, int D, bool CAUSAL>
bool try_launch_dq(const BwdParams &p, cudaStream_t stream, cudaError_t *status) {
  static_assert(D == 64 || D == 128, "sm_90a instances exist for head dims 64 and 128");
  return try_pass<T, D, dq_kernel<T, D, CAUSAL>>(p, p.q, p.dout, p.k, p.v, p.dq, nullptr, stream, status);
}

}  // namespace mha::cuda::sm90::bwd

#endif
