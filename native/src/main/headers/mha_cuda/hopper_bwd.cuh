// The backward on Hopper (sm_90a), fp16 and bf16, head dim 64 and 128, on wgmma with operands that
// the TMA unit loads, a producer warp and two consumer warpgroups (hopper_fwd.cuh has the scheme;
// hopper_common.cuh the layouts and helpers). delta = rowsum(dO * O) comes from flash_bwd.cuh's
// first kernel. A block owns 128 keys (64 per consumer) with their K and V rows in shared memory
// and walks the queries in tiles of 64: S^T = K Q^T and dP^T = V dO^T, then P^T = exp(S^T - lse)
// and dS^T = P^T (dP^T - delta) in registers, where they are the A operands of dV += P^T dO and
// dK += dS^T Q (Q and dO read N-major). The producer stages each query tile's lse and delta next to
// its Q and dO. dQ comes one of two ways:
//  - fused (the default): in the same walk, dQ_tile = dS K from a shared dS^T buffer, added in
//    float32 to a dQ accumulator in the workspace by the TMA unit, then converted (five products a
//    tile pair; the additions land in no fixed order; without a mask the key blocks of the grid's
//    last round may each be walked in parts, see KeyBlockSplit);
//  - with MHA_DETERMINISTIC=1, the deterministic passes of flash_bwd.cuh (every output written by
//    exactly one block, no atomics): the walk above for dK and dV only, then a dQ pass in which a
//    block owns 128 queries and walks the keys in tiles of 64: S = Q K^T and dP = dO V^T,
//    dS = P (dP - delta), dQ += dS K (K N-major). These overlap inside a consumer warpgroup: the
//    first two products of tile t+1 are issued ahead of the last ones of tile t, and the
//    element-wise work of t+1 runs while the tensor cores finish tile t (the dK/dV pass at head
//    dim 64 only).
// Chosen at run time exactly like the forward (compute capability 9.0, sm_90a code present,
// MHA_DISABLE_SM90 unset); what does not apply falls back to flash_bwd.cuh's mma.sync kernels.
#ifndef MHA_CUDA_HOPPER_BWD_CUH
#define MHA_CUDA_HOPPER_BWD_CUH

#include "mha_cuda/hopper_common.cuh"

namespace mha::cuda::sm90::bwd {

constexpr int kConsumers = 2, kThreads = 128 * (kConsumers + 1), kMaxStages = 4;
constexpr int kOwnRows = 64 * kConsumers;  // keys (dK/dV pass) or queries (dQ pass) of a block
constexpr int kTileRows = 64;              // queries (dK/dV pass) or keys (dQ pass) of a streamed tile

// Whether the dK/dV pass overlaps too: at head dim 128 its accumulators (dK and dV), the next tile's
// S^T and dP^T and this tile's operands would all be live at once, past the 240 registers a
// consumer has, and the spills cost more than the overlap gains.
// (Measured on an H100: overlapped at 128 with its spills, the backward took 1.19x as long.)
template <int D>
constexpr bool kOverlapDkdv = D == 64;
// The same for the fused pass, whose consumer also holds half of dQ_tile: at head dim 64, 176
// registers of accumulators and operands a thread.
template <int D>
constexpr bool kOverlapFused = D == 64;

// Four stages for the two passes: a stage is held from the first products of its tile until the
// last ones finish, which with the overlap spans two iterations, and the loads need one more
// iteration ahead. The fused pass (FUSED) also keeps two buffers of dS^T for the dQ product and two
// float32 dQ buffers a consumer for the TMA unit to add from; at head dim 128 two stages leave room
// for them.
template <int D, bool FUSED = false>
struct Layout {
  static constexpr int kOwnBytes = kOwnRows * D * 2, kTileBytes = kTileRows * D * 2;
  static constexpr int kStageBytes = 2 * kTileBytes + 2 * kTileRows * 4;  // two tiles, then lse and delta
  static constexpr int kStages = FUSED && D == 128 ? 2 : 4;
  static constexpr int kDsBytes = kOwnRows * kTileRows * 2;  // dS^T of one tile: keys x queries
  static constexpr int kDqBytes = kTileRows * D / 2 * 4;     // a consumer's half of dQ_tile, float32
  // The dS^T and dQ buffers start on a 1024-byte boundary, where the 128-byte swizzle pattern starts.
  static constexpr int kDsOffset = (2 * kOwnBytes + kStages * kStageBytes + 1023) / 1024 * 1024;
  static constexpr int kDqOffset = kDsOffset + 2 * kDsBytes;
  static constexpr int kTilesEnd =
      FUSED ? kDqOffset + 2 * kConsumers * kDqBytes : 2 * kOwnBytes + kStages * kStageBytes;
  static constexpr int kSmem = kTilesEnd + 1024 + 128;  // alignment slack, barriers
  static_assert(kSmem <= 227 * 1024, "the stages must fit in shared memory");
};

struct Barriers {
  uint64_t own_full, full[kMaxStages], empty[kMaxStages];
};

struct KernelArgs {
  const void *own_a, *own_b;  // the owned tensors, for consumers that read their rows into registers
  const float *lse, *delta;
  void *out_a, *out_b;  // dK and dV, or dQ and unused
  int seq;
  float scale, scale_log2;
  // The fused pass without a mask only (a grid of items, see KeyBlockSplit): key blocks of a head,
  // how they are split, and the float32 slots of the split blocks' parts.
  int row_blocks = 0, whole = 0, pieces = 1;
  float *parts = nullptr;
};

// How the fused pass without a mask hands out its key blocks, one a thread block: every key block
// walks all of its head's query tiles, so the blocks take equally long and the grid runs in rounds
// of one block an SM. When the blocks do not fill the last round (at seq 4096, b 4 and h 16: 2048
// blocks are 15.5 rounds of 132 SMs), most SMs would idle through it; so the last round's `split`
// blocks each walk in `pieces` parts of their query tiles, one part a thread block, after the
// `whole` blocks before them. A part adds up its own dK and dV, which it writes in float32 to a slot
// of the workspace; finish_kernel sums the slots in the order of the parts (the same bits every
// run) and writes dK and dV. At head dim 64 (only there does the workspace have room for the
// slots) the backward without a mask ran 1.01-1.03x as fast at seq 4096 (68 blocks in 5 parts
// each), 8192 and 16384 (H100, check.py compare-bwd-d64).
struct KeyBlockSplit {
  int whole, split, pieces;
  int items() const { return whole + split * pieces; }
};

// The split key blocks' parts, for finish_kernel.
struct SplitSums {
  const float4 *slots;
  uint2 *dk, *dv;
  int whole, pieces, row_blocks, seq;
};

// A split pays for every part what a key block pays once: loading K and V, a first tile not
// overlapped, the float32 slot written and summed; counted as kPartOverheadTiles query tiles.
constexpr int kPartOverheadTiles = 2, kMinPartTiles = 4, kMaxPieces = 8;
// The floats of a part's slot: its dK, then its dV, kOwnRows x D each.
template <int D>
constexpr size_t kSlotFloats = 2 * static_cast<size_t>(kOwnRows) * D;

// The split of `blocks` key blocks of `tiles` query tiles each over `sms` multiprocessors that takes
// the last round the fewest tiles, counting what a part costs; none where splitting does not
// shorten it or its slots would not fit in `spare_floats`.
inline KeyBlockSplit plan_split(int blocks, int tiles, int sms, size_t spare_floats, size_t slot_floats) {
  KeyBlockSplit plan{blocks, 0, 1};
  const int last = sms > 0 ? blocks % sms : 0;  // the blocks of the last round
  int best = tiles;                             // its tiles unsplit
  for (int pieces = 2; last > 0 && pieces <= kMaxPieces && tiles / pieces >= kMinPartTiles; ++pieces) {
    if (static_cast<size_t>(last) * pieces * slot_floats > spare_floats) break;
    const int rounds = (last * pieces + sms - 1) / sms;
    const int cost = rounds * ((tiles + pieces - 1) / pieces + kPartOverheadTiles);
    if (cost < best) {
      best = cost;
      plan = KeyBlockSplit{blocks - last, last, pieces};
    }
  }
  return plan;
}

#if defined(MHA_SM90_CODE)
// Block-level setup shared by the passes: shared memory carved into the two owned tiles, the
// stages (and the dS^T and dQ buffers of the fused pass), barriers initialised.
template <int D, bool FUSED = false>
struct Shared {
  using L = Layout<D, FUSED>;
  unsigned char *own_a, *own_b;
  unsigned char *stage_base;
  Barriers *bar;

  __device__ __forceinline__ Shared(unsigned char *raw) {
    // Aligned by moving the pointer itself rather than rounding it as an integer, so that the compiler
    // still knows every address below to be shared memory: ld/st.shared for the dS^T and dQ buffers
    // and lse/delta, where generic accesses cost a lookup of the address space and a wait like a
    // global load's.
    unsigned char *base = raw + (1024 - shared_address(raw) % 1024) % 1024;
    own_a = base;
    own_b = base + L::kOwnBytes;
    stage_base = base + 2 * L::kOwnBytes;
    bar = reinterpret_cast<Barriers *>(base + L::kTilesEnd);
    if (threadIdx.x == 0) {
      bar_init(&bar->own_full, 1);
      for (int s = 0; s < L::kStages; ++s) {
        bar_init(&bar->full[s], kWarpSize);  // the producer warp's lanes (see produce)
        bar_init(&bar->empty[s], kConsumers * 128);
      }
      bar_init_fence();
    }
    __syncthreads();
  }
  __device__ __forceinline__ unsigned char *tile_a(int stage) const {
    return stage_base + stage * L::kStageBytes;
  }
  __device__ __forceinline__ unsigned char *tile_b(int stage) const { return tile_a(stage) + L::kTileBytes; }
  __device__ __forceinline__ float *lse(int stage) const {
    return reinterpret_cast<float *>(tile_a(stage) + 2 * L::kTileBytes);
  }
  __device__ __forceinline__ float *delta(int stage) const { return lse(stage) + kTileRows; }
  // The fused pass's dS^T buffer i (of two): kOwnRows keys x kTileRows queries, one swizzled atom.
  __device__ __forceinline__ unsigned char *ds(int i) const { return own_a + L::kDsOffset + i * L::kDsBytes; }
  // The fused pass's float32 dQ buffer i (of two) of consumer c: boxes of 64 rows x 32 columns, 8 KB each.
  __device__ __forceinline__ unsigned char *dq(int i, int c) const {
    return own_a + L::kDqOffset + (i * kConsumers + c) * L::kDqBytes;
  }
};

// The producer warpgroup: it gives its registers to the consumers, and its first warp loads the two
// owned tiles once (when `load_own`: unless the consumers hold them in registers), then for each
// streamed tile t (rows r0(t)) its two tiles and, when
// `stage_rows`, the tile rows' lse (log2 units) and delta into the stage.
template <int D, bool FUSED, typename RowOf>
__device__ __forceinline__ void produce(const Shared<D, FUSED> &sm, const CUtensorMap *own_a, const CUtensorMap *own_b,
                                        const CUtensorMap *tile_a, const CUtensorMap *tile_b, int own0, int tiles,
                                        RowOf row_of, int head, const KernelArgs &args, bool stage_rows,
                                        bool load_own) {
  producer_registers();
  if (threadIdx.x >= kWarpSize) {
    return;
  }
  const int lane = threadIdx.x % kWarpSize;
  if (lane == 0 && load_own) {
    bar_expect(&sm.bar->own_full, 2 * Layout<D, FUSED>::kOwnBytes);
    tma_load_tile<D>(sm.own_a, kOwnRows, own_a, &sm.bar->own_full, own0, head);
    tma_load_tile<D>(sm.own_b, kOwnRows, own_b, &sm.bar->own_full, own0, head);
  }
  const size_t rows_before = static_cast<size_t>(head) * args.seq;
  constexpr int kStages = Layout<D, FUSED>::kStages;
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
    // Every lane arrives, so that each one's stores of lse and delta are released to the consumers
    // by its own arrival (the barrier completes with all 32 and the tiles' bytes), not only through
    // __syncwarp and lane 0's, an order compute-sanitizer's racecheck does not follow.
    if (lane == 0) {
      bar_expect(&sm.bar->full[stage], 2 * Layout<D, FUSED>::kTileBytes);
      tma_load_tile<D>(sm.tile_a(stage), kTileRows, tile_a, &sm.bar->full[stage], r0, head);
      tma_load_tile<D>(sm.tile_b(stage), kTileRows, tile_b, &sm.bar->full[stage], r0, head);
    } else {
      bar_arrive(&sm.bar->full[stage]);
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

  template <bool FUSED>
  __device__ __forceinline__ Place(const Shared<D, FUSED> &sm, int own0) {
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

  template <bool FUSED>
  __device__ __forceinline__ FirstProducts(const Shared<D, FUSED> &sm, const Place<D> &at, const KernelArgs &args,
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
  // Both products as one group.
  __device__ __forceinline__ void issue(float (&x)[32], const unsigned char *b1, float (&y)[32],
                                        const unsigned char *b2) const {
    product(x, a1, a1_rows, b1);
    product(y, a2, a2_rows, b2);
    wgmma_commit();
  }
  // Only x = A1 B1^T, or only y = A2 B2^T, each a group of its own: for a consumer that works on x
  // while y is still on the tensor cores.
  __device__ __forceinline__ void issue_first(float (&x)[32], const unsigned char *b1) const {
    product(x, a1, a1_rows, b1);
    wgmma_commit();
  }
  __device__ __forceinline__ void issue_second(float (&y)[32], const unsigned char *b2) const {
    product(y, a2, a2_rows, b2);
    wgmma_commit();
  }
  // The same products, finished on return.
  __device__ __forceinline__ void run(float (&x)[32], const unsigned char *b1, float (&y)[32],
                                      const unsigned char *b2) const {
    wgmma_fence();
    issue(x, b1, y, b2);
    wgmma_wait<0>();
    pin(x);
    pin(y);
  }

 private:
  __device__ __forceinline__ void product(float (&c)[32], const uint32_t (&a)[IN_REGISTERS ? D / 16 : 1][4],
                                          const unsigned char *a_rows, const unsigned char *b) const {
    if constexpr (IN_REGISTERS) issue_rk<T, D, kTileRows>(c, a, b);
    else issue_ss<T, D, kTileRows>(c, a_rows, kOwnRows * 128, b);
  }
};

// P^T = exp2(S^T scale_log2 - lse) in place of S^T for the query tile at q0: rows are keys (key0
// and key0 + 8 of a warpgroup whose keys start at `first`), columns the tile's queries, whose lse
// (log2 units) the producer staged.
template <bool CAUSAL>
__device__ __forceinline__ void transposed_probabilities(float (&st)[32], int q0, int key0, int first, int seq,
                                                         const float *lse, float scale_log2) {
  const int lane = threadIdx.x % kWarpSize, key1 = key0 + 8;
  const bool mask = q0 + kTileRows > seq || (CAUSAL && first + 63 > q0);
#pragma unroll
  for (int j = 0; j < kTileRows / 8; ++j) {
#pragma unroll
    for (int e = 0; e < 2; ++e) {
      const int col = 8 * j + 2 * (lane % 4) + e, query = q0 + col;
      // Past seq, lse is +inf and P^T is 0.
      float p0 = fast_exp2(st[4 * j + e] * scale_log2 - lse[col]);
      float p1 = fast_exp2(st[4 * j + 2 + e] * scale_log2 - lse[col]);
      if (mask && CAUSAL) {
        p0 = key0 <= query ? p0 : 0.f;
        p1 = key1 <= query ? p1 : 0.f;
      }
      st[4 * j + e] = p0;
      st[4 * j + 2 + e] = p1;
    }
  }
}

// dS^T = P^T (dP^T - delta) in place of dP^T, with the tile's delta as the producer staged it.
__device__ __forceinline__ void transposed_ds(const float (&pt)[32], float (&dpt)[32], const float *delta) {
  const int lane = threadIdx.x % kWarpSize;
#pragma unroll
  for (int j = 0; j < kTileRows / 8; ++j) {
#pragma unroll
    for (int e = 0; e < 2; ++e) {
      const int col = 8 * j + 2 * (lane % 4) + e;
      dpt[4 * j + e] = pt[4 * j + e] * (dpt[4 * j + e] - delta[col]);
      dpt[4 * j + 2 + e] = pt[4 * j + 2 + e] * (dpt[4 * j + 2 + e] - delta[col]);
    }
  }
}

// Both of the above, one after the other.
template <bool CAUSAL>
__device__ __forceinline__ void transposed_gradients(float (&st)[32], float (&dpt)[32], int q0, int key0, int first,
                                                     int seq, const float *lse, const float *delta,
                                                     float scale_log2) {
  transposed_probabilities<CAUSAL>(st, q0, key0, first, seq, lse, scale_log2);
  transposed_ds(st, dpt, delta);
}

// Exchanges a and b when p holds.
__device__ __forceinline__ void swap_if(bool p, float &a, float &b) {
  const float x = p ? b : a;
  b = p ? a : b;
  a = x;
}

// How many heads' causal blocks are handed out together (owned_rows).
constexpr int kCausalHeadGroup = 4;

struct OwnedRows {
  int row0, head;  // the block's first owned row (key or query); its head, batch-major
};

// The owned rows and head of this thread block, on a grid of (row blocks, heads, batch). Without a
// mask, the grid's own order: a head's blocks side by side, sharing its streamed tiles in L2. With
// one, a block walks the tiles on its side of the diagonal only, so a head's blocks differ in length
// (the first key blocks are the longest, or with LONGEST_LAST the last query blocks); handed out
// head by head, the last heads' longest blocks start when the grid is nearly done and run on alone
// (at seq 4096 a head has 32 blocks, a quarter of the SMs). So the blocks, taken in the order of
// their linear index (the order in which the GPU starts them), go out in groups of
// kCausalHeadGroup heads, longest first across the group: the grid ends on short blocks, and the
// blocks that run together still share a few heads' tiles in L2. The causal fused backward ran
// 1.03-1.09x as fast at seq 4096 and 8192 and 1.01-1.03x at 16384 (H100 and H200, backwards alone
// taking turns), the two passes of MHA_DETERMINISTIC=1 1.02-1.11x at 4096 and 8192, 1.04-1.06x at
// 16384 for head dim 64 and 0.99-1.00x for 128 (H100); groups of 2 heads gained only 1.03-1.04x at
// 4096 and groups of 8 no more than 4, and one group of all heads (every head's longest block,
// then every head's second, ...) ran 0.85-0.96x as fast in an earlier try, the blocks running
// together then sharing no tiles.
template <bool CAUSAL, bool LONGEST_LAST = false>
__device__ __forceinline__ OwnedRows owned_rows() {
  const int grid_head = static_cast<int>(blockIdx.z * gridDim.y + blockIdx.y);  // the block's head without a mask
  if constexpr (!CAUSAL) {
    return {static_cast<int>(blockIdx.x * kOwnRows), grid_head};
  } else {
    const int blocks = static_cast<int>(gridDim.x), heads = static_cast<int>(gridDim.y * gridDim.z);
    const int linear = static_cast<int>(blockIdx.x) + blocks * grid_head;
    const int group = linear / (kCausalHeadGroup * blocks);
    const int size = min(kCausalHeadGroup, heads - group * kCausalHeadGroup);  // the last group may be smaller
    const int within = linear - group * kCausalHeadGroup * blocks;
    const int longest_first = within / size;
    return {(LONGEST_LAST ? blocks - 1 - longest_first : longest_first) * kOwnRows,
            group * kCausalHeadGroup + within % size};
  }
}

// What a thread block of the fused pass walks: its key block, and `count` of the block's `tiles`
// query tiles (from q_begin on) starting at tile `first` and wrapping around; `slot` is its part's
// slot of the workspace, or -1 for a whole block, which writes dK and dV itself.
struct FusedWalk {
  OwnedRows block;
  int q_begin, tiles, first, count, slot;
};

template <bool CAUSAL>
__device__ __forceinline__ FusedWalk fused_walk(const KernelArgs &args) {
  if constexpr (CAUSAL) {
    // A causal block walks the query tiles from its diagonal on.
    const OwnedRows block = owned_rows<true>();
    const int q_begin = block.row0 / kTileRows * kTileRows;
    const int tiles = (args.seq - q_begin + kTileRows - 1) / kTileRows;
    return {block, q_begin, tiles, 0, tiles, -1};
  } else {
    // Item i < whole is key block i, a head's blocks side by side (sharing its tiles in L2), each
    // starting at its own tile, spread evenly over the walk, so that blocks running side by side do
    // not all add into the same dQ rows at the same moment. The items after those are the parts of
    // the split blocks (KeyBlockSplit), a block's parts one after the other.
    const int tiles = (args.seq + kTileRows - 1) / kTileRows, item = static_cast<int>(blockIdx.x);
    int key_block = item, begin = 0, end = tiles, slot = -1;
    if (item >= args.whole) {
      slot = item - args.whole;
      key_block = args.whole + slot / args.pieces;
      const int piece = slot % args.pieces;
      begin = piece * tiles / args.pieces;
      end = (piece + 1) * tiles / args.pieces;
    }
    const int row_block = key_block % args.row_blocks, shift = row_block * tiles / args.row_blocks;
    return {{row_block * kOwnRows, key_block / args.row_blocks}, 0, tiles, (shift + begin) % tiles, end - begin, slot};
  }
}

// A part's float32 dK and dV into its slot: accumulator rows `local` and local + 8 of the key block.
template <int D>
__device__ __forceinline__ void store_part(float *slot, const float (&dk)[D / 2], const float (&dv)[D / 2],
                                           int local) {
  const int lane = threadIdx.x % kWarpSize;
#pragma unroll
  for (int t = 0; t < 2; ++t) {
    const float(&c)[D / 2] = t == 0 ? dk : dv;
    float *rows = slot + t * kOwnRows * D;
#pragma unroll
    for (int j = 0; j < D / 8; ++j) {
      const int col = 8 * j + 2 * (lane % 4);
      *reinterpret_cast<float2 *>(rows + local * D + col) = make_float2(c[4 * j], c[4 * j + 1]);
      *reinterpret_cast<float2 *>(rows + (local + 8) * D + col) = make_float2(c[4 * j + 2], c[4 * j + 3]);
    }
  }
}

template <typename T, int D, bool CAUSAL>
__global__ void MHA_SM90_LAUNCH_BOUNDS(kThreads)
    dkdv_kernel(const __grid_constant__ CUtensorMap tk, const __grid_constant__ CUtensorMap tv,
                const __grid_constant__ CUtensorMap tq, const __grid_constant__ CUtensorMap tdo,
                const KernelArgs args) {
  extern __shared__ unsigned char raw[];
  const Shared<D> sm(raw);  // own_a: K, own_b: V; tile_a: Q, tile_b: dO
  constexpr int kStages = Layout<D>::kStages;
  constexpr bool kOwnInRegisters = kOverlapDkdv<D>;  // room for K and V rows only beside the overlap's needs
  const OwnedRows block = owned_rows<CAUSAL>();
  const int seq = args.seq, n0 = block.row0, head = block.head;
  const int q_begin = CAUSAL ? n0 / kTileRows * kTileRows : 0;
  const int tiles = (seq - q_begin + kTileRows - 1) / kTileRows;
  if (threadIdx.x < 128) {
    produce<D, false>(sm, &tk, &tv, &tq, &tdo, n0, tiles, [&](int t) { return q_begin + t * kTileRows; }, head,
                      args, true,
               !kOwnInRegisters);
    return;
  }
  const Place<D> at(sm, n0);  // rows are keys; a_rows: K, b_rows: V
  const int key0 = at.row0;

  float dk[D / 2], dv[D / 2];
#pragma unroll
  for (int i = 0; i < D / 2; ++i) dk[i] = dv[i] = 0.f;
  const FirstProducts<T, D, kOwnInRegisters> first(sm, at, args, head);  // S^T = K Q^T, dP^T = V dO^T

  // P^T and dS^T of tile t, in place of S^T and dP^T.
  auto elementwise = [&](float (&st)[32], float (&dpt)[32], int t) {
    const int stage = t % kStages;
    transposed_gradients<CAUSAL>(st, dpt, q_begin + t * kTileRows, key0, at.first, seq, sm.lse(stage),
                                 sm.delta(stage), args.scale_log2);
  };
  auto wait_tile = [&](int t) { bar_wait(&sm.bar->full[t % kStages], (t / kStages) & 1); };

  float st[32], dpt[32];  // S^T and dP^T of the newest tile
  if constexpr (!kOverlapDkdv<D>) {
    for (int t = 0; t < tiles; ++t) {
      const int stage = t % kStages;
      uint32_t p_op[kTileRows / 16][4], ds_op[kTileRows / 16][4];
      wait_tile(t);
      first.run(st, sm.tile_a(stage), dpt, sm.tile_b(stage));
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
    first.run(st, sm.tile_a(0), dpt, sm.tile_b(0));
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
  constexpr int kStages = Layout<D>::kStages;
  constexpr bool kOwnInRegisters = true;
  const OwnedRows block = owned_rows<CAUSAL, true>();
  const int seq = args.seq, m0 = block.row0, head = block.head;
  const int kv_end = CAUSAL ? min(seq, m0 + kOwnRows) : seq;
  const int tiles = (kv_end + kTileRows - 1) / kTileRows;
  if (threadIdx.x < 128) {
    produce<D, false>(sm, &tq, &tdo, &tk, &tv, m0, tiles, [](int t) { return t * kTileRows; }, head, args, false,
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
  first.run(s, sm.tile_a(0), dp, sm.tile_b(0));
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

// dK, dV and dQ in one pass (the dK/dV pass's walk), dQ added up in float32 across key blocks: per
// query tile, each consumer writes its dS^T rows (64 keys x 64 queries) into a shared buffer, and
// once both have (a barrier of the consumers), each issues its half of the head dims of
// dQ_tile = dS K over the block's 128 keys (dS read M-major, K N-major from the owned tile) and
// writes the 64 x D/2 result into a staging buffer, from which the TMA unit adds it to the float32
// dQ accumulator (tdq): reductions in the L2, where adding from registers with red.global took a
// quarter of the pass's time. Five products a tile pair instead of the two passes' seven; the
// order in which key blocks add to a dQ row varies, so dQ is not bitwise reproducible run to run.
template <typename T, int D, bool CAUSAL>
__global__ void MHA_SM90_LAUNCH_BOUNDS(kThreads)
    fused_kernel(const __grid_constant__ CUtensorMap tk, const __grid_constant__ CUtensorMap tv,
                 const __grid_constant__ CUtensorMap tq, const __grid_constant__ CUtensorMap tdo,
                 const __grid_constant__ CUtensorMap tdq, const KernelArgs args) {
  extern __shared__ unsigned char raw[];
  const Shared<D, true> sm(raw);  // own_a: K, own_b: V; tile_a: Q, tile_b: dO; ds(0), ds(1): dS^T
  constexpr int kStages = Layout<D, true>::kStages;
  const FusedWalk walk = fused_walk<CAUSAL>(args);
  const int seq = args.seq, n0 = walk.block.row0, head = walk.block.head, tiles = walk.count;
  auto tile_row = [&](int t) {
    const int i = walk.first + t;
    return walk.q_begin + (i < walk.tiles ? i : i - walk.tiles) * kTileRows;
  };
  if (threadIdx.x < 128) {
    produce<D, true>(sm, &tk, &tv, &tq, &tdo, n0, tiles, tile_row, head,
                     args, true, true);
    return;
  }
  const Place<D> at(sm, n0);  // rows are keys; a_rows: K, b_rows: V
  const int key0 = at.row0;
  const int consumer = threadIdx.x / 128 - 1, warp = threadIdx.x % 128 / kWarpSize;
  const int local0 = consumer * 64 + warp * 16 + at.lane / 4;  // key0's row in a dS^T buffer (local0 % 8 = lane / 4)
  const size_t rows_before = static_cast<size_t>(head) * seq;

  float dk[D / 2], dv[D / 2];
#pragma unroll
  for (int i = 0; i < D / 2; ++i) dk[i] = dv[i] = 0.f;
  const FirstProducts<T, D, false> first(sm, at, args, head);  // S^T = K Q^T, dP^T = V dO^T

  // One thread hands each tile's dQ (both halves, from the buffers t % 2) to the TMA unit, which
  // adds it to the dQ accumulator (rows past seq left out).
  constexpr int kHalf = D / 2, kBoxBytes = kTileRows * 128;
  const bool issuer = threadIdx.x == 128;
  auto add_dq = [&](int t) {
#pragma unroll
    for (int c = 0; c < kConsumers; ++c) {
#pragma unroll
      for (int box = 0; box < kHalf / 32; ++box) {
        tma_add(&tdq, sm.dq(t % 2, c) + box * kBoxBytes, c * kHalf + box * 32, tile_row(t), head);
      }
    }
    bulk_commit();
  };

  auto wait_tile = [&](int t) { bar_wait(&sm.bar->full[t % kStages], (t / kStages) & 1); };
  // P^T and dS^T of tile t, in place of S^T and dP^T, and as the A operands of the products.
  auto gradients = [&](float (&st)[32], float (&dpt)[32], int t, uint32_t (&p_op)[kTileRows / 16][4],
                       uint32_t (&ds_op)[kTileRows / 16][4]) {
    const int stage = t % kStages;
    transposed_gradients<CAUSAL>(st, dpt, tile_row(t), key0, at.first, seq, sm.lse(stage),
                                 sm.delta(stage), args.scale_log2);
    to_operand<T, kTileRows>(p_op, st);
    to_operand<T, kTileRows>(ds_op, dpt);
  };
  // dS^T rows key0 and key0 + 8 of tile t into its buffer: 16-byte chunk c of row r at
  // r * 128 + (c ^ r % 8) * 16.
  auto write_ds = [&](int t, const uint32_t (&ds_op)[kTileRows / 16][4]) {
    unsigned char *ds = sm.ds(t % 2);
    const int swizzle = at.lane / 4, within = 4 * (at.lane % 4);
#pragma unroll
    for (int kk = 0; kk < kTileRows / 16; ++kk) {
      *reinterpret_cast<uint32_t *>(ds + local0 * 128 + ((2 * kk) ^ swizzle) * 16 + within) = ds_op[kk][0];
      *reinterpret_cast<uint32_t *>(ds + (local0 + 8) * 128 + ((2 * kk) ^ swizzle) * 16 + within) = ds_op[kk][1];
      *reinterpret_cast<uint32_t *>(ds + local0 * 128 + ((2 * kk + 1) ^ swizzle) * 16 + within) = ds_op[kk][2];
      *reinterpret_cast<uint32_t *>(ds + (local0 + 8) * 128 + ((2 * kk + 1) ^ swizzle) * 16 + within) = ds_op[kk][3];
    }
  };
  // dV and dK of tile t, then this consumer's half of the head dims of dQ_tile = dS K (over all 128
  // keys, from the dS^T buffer of tile t, which both consumers wrote before a barrier); issued, not
  // committed.
  const unsigned char *k_columns =
      sm.own_a + consumer * (kHalf / 64 * kOwnRows * 128 + kHalf % 64 * 2);  // K N-major from there
  auto key_products = [&](int t, const uint32_t (&p_op)[kTileRows / 16][4],
                          const uint32_t (&ds_op)[kTileRows / 16][4]) {
    const int stage = t % kStages;
    issue_rs<T, kTileRows, D>(dv, p_op, sm.tile_b(stage));   // dV += P^T dO
    issue_rs<T, kTileRows, D>(dk, ds_op, sm.tile_a(stage));  // dK += dS^T Q
  };
  auto query_product = [&](int t, float (&dq)[kHalf / 2]) {
    issue_transposed<T, kOwnRows, kHalf>(dq, sm.ds(t % 2), k_columns);
  };
  // The half of dQ_tile of tile t into the consumer's float32 buffer t % 2, for the issuer to hand to
  // the TMA unit after the next barrier. Element (r, c) of a 32-column box lies at
  // r * 128 + ((c / 4) ^ r % 8) * 16 + c % 4 * 4. A lane holds four groups of 8 columns a box (two
  // columns of each) of rows r and r + 8; stored group by group, rows r and r ^ 1 met in the same
  // banks and every 64-bit store took two passes a half-warp (ncu: a third of the shared-store
  // wavefronts were bank conflicts). So each lane starts at its own group (turn), which spreads the
  // four rows of a half-warp over all eight 16-byte chunks of the banks. Without a mask the backward
  // ran 0.98-1.04x as fast with it, 1.01x on average (H100, backwards alone taking turns as check.py
  // compare-bwd does, four runs; 0.99-1.01x in check.py compare); the causal kernels ran 0.95-0.97x
  // as fast at head dim 64 (cause not found) and keep storing group by group.
  auto stage_dq = [&](int t, const float (&dq)[kHalf / 2]) {
    unsigned char *staging = sm.dq(t % 2, consumer);
    const int r = at.lane / 4, row = warp * 16 + r;  // and row + 8; row % 8 = r
    const int turn = CAUSAL ? 0 : (r / 2) ^ (r % 4);
    float v[kHalf / 2];  // v's group g of each box: dq's group g ^ turn (selects: registers cannot be indexed)
#pragma unroll
    for (int i = 0; i < kHalf / 2; ++i) v[i] = dq[i];
#pragma unroll
    for (int b = 0; b < kHalf / 32; ++b) {
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        float *g = v + 16 * b + k;  // g[4 * n]: group n of box b
        swap_if(turn & 1, g[0], g[4]);
        swap_if(turn & 1, g[8], g[12]);
        swap_if(turn & 2, g[0], g[8]);
        swap_if(turn & 2, g[4], g[12]);
      }
    }
#pragma unroll
    for (int j = 0; j < kHalf / 8; ++j) {
      unsigned char *box = staging + j / 4 * kBoxBytes;
      const int chunk = 2 * (j % 4 ^ turn) + at.lane % 4 / 2, offset = at.lane % 2 * 8;
      *reinterpret_cast<float2 *>(box + row * 128 + (chunk ^ r) * 16 + offset) = make_float2(v[4 * j], v[4 * j + 1]);
      *reinterpret_cast<float2 *>(box + (row + 8) * 128 + (chunk ^ r) * 16 + offset) =
          make_float2(v[4 * j + 2], v[4 * j + 3]);
    }
  };

  float st[32], dpt[32];
  uint32_t p_op[kTileRows / 16][4], ds_op[kTileRows / 16][4];
  float dq[kHalf / 2];
  if constexpr (!kOverlapFused<D>) {
    // S^T and dP^T are waited for one at a time, so that P^T's exponentials run while dP^T is on the
    // tensor cores; dV and dK go out before the dS^T buffer is written and the consumers meet at its
    // barrier, dQ's product after it.
    pin(dk);  // zeroed before the first product goes out: ptxas serialises the wgmmas otherwise
    pin(dv);
    for (int t = 0; t < tiles; ++t) {
      const int stage = t % kStages;
      wait_tile(t);
      wgmma_fence();
      first.issue_first(st, sm.tile_a(stage));   // S^T = K Q^T
      first.issue_second(dpt, sm.tile_b(stage));  // dP^T = V dO^T
      wgmma_wait<1>();
      pin(st);
      transposed_probabilities<CAUSAL>(st, tile_row(t), key0, at.first, seq, sm.lse(stage), args.scale_log2);
      wgmma_wait<0>();
      pin(dpt);
      transposed_ds(st, dpt, sm.delta(stage));
      to_operand<T, kTileRows>(p_op, st);
      to_operand<T, kTileRows>(ds_op, dpt);
      wgmma_fence();
      key_products(t, p_op, ds_op);  // under the dS^T buffer and the barrier
      wgmma_commit();
      write_ds(t, ds_op);
      fence_async_shared();
      // The dQ buffers t % 2 are written this tile; the TMA unit last read them two tiles ago.
      if (issuer) bulk_wait_read();
      // Both halves of dS^T are in the buffer, the dQ buffers of the last tile are complete, and the
      // ones of this tile are free.
      consumers_sync<kConsumers * 128>();
      if (issuer && t > 0) add_dq(t - 1);
      // The dS^T buffer is written again two tiles on, after the next barrier, which this consumer
      // reaches only once its product has read the buffer.
      wgmma_fence();
      query_product(t, dq);
      wgmma_commit();
      wgmma_wait<0>();
      pin(dv);
      pin(dk);
      pin(dq);
      bar_arrive(&sm.bar->empty[stage]);
      stage_dq(t, dq);  // handed to the TMA unit by the next tile's fence and barrier (or those below)
    }
    fence_async_shared();
    consumers_sync<kConsumers * 128>();
    if (issuer) add_dq(tiles - 1);
  } else {
    // The first products of tile t + 1 go to the tensor cores ahead of the last ones of tile t, and
    // its element-wise work runs while those finish.
    wait_tile(0);
    first.run(st, sm.tile_a(0), dpt, sm.tile_b(0));
    gradients(st, dpt, 0, p_op, ds_op);
    write_ds(0, ds_op);
    fence_async_shared();
    consumers_sync<kConsumers * 128>();
    // Tile t's products, then: its dQ half into buffer t % 2 (the TMA unit finished reading that
    // buffer, tile t - 2's, before the last barrier), tile t + 1's operands and dS^T (its buffer was
    // last read by tile t - 1's products, done before the last barrier too), and the barrier after
    // which the issuer hands tile t's dQ to the TMA unit.
    auto finish = [&](int t, bool next) {
      bar_arrive(&sm.bar->empty[t % kStages]);
      stage_dq(t, dq);
      if (next) {
        to_operand<T, kTileRows>(p_op, st);
        to_operand<T, kTileRows>(ds_op, dpt);
        write_ds(t + 1, ds_op);
      }
      fence_async_shared();
      if (issuer) bulk_wait_read();  // tile t - 1's adds have read dQ buffer (t + 1) % 2
      consumers_sync<kConsumers * 128>();
      if (issuer) add_dq(t);
    };
    for (int t = 0; t + 1 < tiles; ++t) {
      const int next = (t + 1) % kStages;
      wait_tile(t + 1);
      wgmma_fence();
      first.issue(st, sm.tile_a(next), dpt, sm.tile_b(next));  // committed
      key_products(t, p_op, ds_op);
      query_product(t, dq);
      wgmma_commit();
      wgmma_wait<1>();  // S^T, dP^T of tile t+1 are ready; dV, dK, dQ of tile t still run
      pin(st);
      pin(dpt);
      transposed_gradients<CAUSAL>(st, dpt, tile_row(t + 1), key0, at.first, seq, sm.lse(next),
                                   sm.delta(next), args.scale_log2);
      wgmma_wait<0>();  // the products have read p_op, ds_op and tile t's stage
      pin(dv);
      pin(dk);
      pin(dq);
      finish(t, true);
    }
    wgmma_fence();
    key_products(tiles - 1, p_op, ds_op);
    query_product(tiles - 1, dq);
    wgmma_commit();
    wgmma_wait<0>();
    pin(dv);
    pin(dk);
    pin(dq);
    finish(tiles - 1, false);
  }
  if (issuer) bulk_wait();  // the adds are done before the block's shared memory goes
  if (!CAUSAL && walk.slot >= 0) {
    store_part<D>(args.parts + walk.slot * kSlotFloats<D>, dk, dv, local0);
  } else {
    store_accumulator<T, D>(args.out_a, dk, rows_before, key0, seq, args.scale, args.scale);
    store_accumulator<T, D>(args.out_b, dv, rows_before, key0, seq, 1.f, 1.f);
  }
}


// After the fused pass: in the first `convert_blocks` blocks, dQ = dq_accum * scale in the input
// type; in the blocks after those, dK and dV of the split key blocks, each the sum of its parts'
// slots in the order of the parts, dK times scale. Four elements a thread.
template <typename T, int D>
__global__ void __launch_bounds__(256) finish_kernel(const float4 *accum, uint2 *dq, size_t quads, float scale,
                                                     unsigned convert_blocks, SplitSums sums) {
  if (blockIdx.x < convert_blocks) {
    const size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < quads) {
      const float4 x = accum[i];
      dq[i] = make_uint2(pack2<T>(x.x * scale, x.y * scale), pack2<T>(x.z * scale, x.w * scale));
    }
    return;
  }
  constexpr int kRowQuads = D / 4, kTensorQuads = kOwnRows * kRowQuads, kSlotQuads = 2 * kTensorQuads;
  const int i = static_cast<int>(blockIdx.x - convert_blocks) * blockDim.x + threadIdx.x;
  const int split = i / kSlotQuads, within = i % kSlotQuads;  // the grid covers the split blocks' quads exactly
  const float4 *part = sums.slots + static_cast<size_t>(split) * sums.pieces * kSlotQuads + within;
  float4 sum = part[0];
  for (int piece = 1; piece < sums.pieces; ++piece) {
    const float4 x = part[piece * kSlotQuads];
    sum = make_float4(sum.x + x.x, sum.y + x.y, sum.z + x.z, sum.w + x.w);
  }
  const int key_block = sums.whole + split, tensor = within / kTensorQuads;
  const int key = key_block % sums.row_blocks * kOwnRows + within % kTensorQuads / kRowQuads;
  if (key < sums.seq) {
    const float factor = tensor == 0 ? scale : 1.f;
    const size_t row = static_cast<size_t>(key_block / sums.row_blocks) * sums.seq + key;
    (tensor == 0 ? sums.dk : sums.dv)[row * kRowQuads + within % kRowQuads] =
        make_uint2(pack2<T>(sum.x * factor, sum.y * factor), pack2<T>(sum.z * factor, sum.w * factor));
  }
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
template <typename T, int D, bool CAUSAL>
__global__ void MHA_SM90_LAUNCH_BOUNDS(kThreads)
    fused_kernel(const __grid_constant__ CUtensorMap, const __grid_constant__ CUtensorMap,
                 const __grid_constant__ CUtensorMap, const __grid_constant__ CUtensorMap,
                 const __grid_constant__ CUtensorMap, const KernelArgs) {}
template <typename T, int D>
__global__ void __launch_bounds__(256) finish_kernel(const float4 *, uint2 *, size_t, float, unsigned, SplitSums) {}
#endif  // MHA_SM90_CODE

// The four tensor maps of a pass (a, b: owned rows; c, d: streamed tiles) when KERNEL runs on this
// device with SMEM bytes of shared memory; false when it does not.
template <typename T, int D, auto *KERNEL, int SMEM>
bool pass_maps(const BwdParams &p, const void *a, const void *b, const void *c, const void *d, CUtensorMap (&maps)[4]) {
  const int heads_total = p.batch * p.heads;
  return usable_on_current_device<KERNEL, SMEM, kThreads>() &&
         tensor_map<T, D>(&maps[0], a, heads_total, p.seq, kOwnRows) &&
         tensor_map<T, D>(&maps[1], b, heads_total, p.seq, kOwnRows) &&
         tensor_map<T, D>(&maps[2], c, heads_total, p.seq, kTileRows) &&
         tensor_map<T, D>(&maps[3], d, heads_total, p.seq, kTileRows);
}

inline dim3 pass_grid(const BwdParams &p) { return dim3((p.seq + kOwnRows - 1) / kOwnRows, p.heads, p.batch); }

// Runs a pass of the two when the sm_90a kernel applies; false, having launched nothing, when it
// does not.
template <typename T, int D, auto *KERNEL>
bool try_pass(const BwdParams &p, const void *a, const void *b, const void *c, const void *d, void *out_a,
              void *out_b, cudaStream_t stream, cudaError_t *status) {
  CUtensorMap maps[4];
  if (!pass_maps<T, D, KERNEL, Layout<D>::kSmem>(p, a, b, c, d, maps)) {
    return false;
  }
  KERNEL<<<pass_grid(p), kThreads, Layout<D>::kSmem, stream>>>(
      maps[0], maps[1], maps[2], maps[3],
      KernelArgs{a, b, p.lse, p.delta, out_a, out_b, p.seq, p.scale, p.scale * kLog2e});
  *status = cudaGetLastError();
  return true;
}

// Whether MHA_DETERMINISTIC asks for gradients that are the same bits on every run: the two passes
// rather than the fused one, whose float32 additions to dQ land in no fixed order.
inline bool deterministic_requested() {
  static const bool requested = env_flag("MHA_DETERMINISTIC");
  return requested;
}

// The fused pass and dQ's conversion when they apply (a dQ accumulator in the workspace, 16-byte
// aligned; not MHA_DETERMINISTIC); false, having launched nothing, when they do not.
template <typename T, int D, bool CAUSAL>
bool try_launch_fused(const BwdParams &p, cudaStream_t stream, cudaError_t *status) {
  static_assert(D == 64 || D == 128, "sm_90a instances exist for head dims 64 and 128");
  constexpr auto *kernel = fused_kernel<T, D, CAUSAL>;
  constexpr int kSmem = Layout<D, true>::kSmem;
  CUtensorMap maps[4], dq_map;
  if (p.dq_accum == nullptr || reinterpret_cast<uintptr_t>(p.dq) % 8 != 0 || deterministic_requested() ||
      !pass_maps<T, D, kernel, kSmem>(p, p.k, p.v, p.q, p.dout, maps) ||
      !tensor_map<float, D>(&dq_map, p.dq_accum, p.batch * p.heads, p.seq, kTileRows)) {
    return false;
  }
  const size_t elements = static_cast<size_t>(p.batch) * p.heads * p.seq * D;
  const int row_blocks = (p.seq + kOwnRows - 1) / kOwnRows, blocks = row_blocks * p.batch * p.heads;
  // Without a mask, the last round's key blocks split where that shortens it; their parts' slots go
  // into the workspace past dQ (room there at head dim 64 only), and finish_kernel writes their dK
  // and dV in 8-byte pieces.
  const size_t spare = p.dq_accum_floats > elements ? p.dq_accum_floats - elements : 0;
  const bool splittable = !CAUSAL && (reinterpret_cast<uintptr_t>(p.dk) | reinterpret_cast<uintptr_t>(p.dv)) % 8 == 0;
  const KeyBlockSplit split =
      splittable ? plan_split(blocks, (p.seq + kTileRows - 1) / kTileRows, multiprocessors(), spare, kSlotFloats<D>)
                 : KeyBlockSplit{blocks, 0, 1};
  float *slots = p.dq_accum + elements;  // 16-byte aligned: elements is a multiple of 4
  *status = cudaMemsetAsync(p.dq_accum, 0, sizeof(float) * elements, stream);  // every key block adds to it
  if (*status == cudaSuccess) {
    KernelArgs args{p.k, p.v, p.lse, p.delta, p.dk, p.dv, p.seq, p.scale, p.scale * kLog2e};
    args.row_blocks = row_blocks;
    args.whole = split.whole;
    args.pieces = split.pieces;
    args.parts = slots;
    const dim3 grid = CAUSAL ? pass_grid(p) : dim3(static_cast<unsigned>(split.items()));
    kernel<<<grid, kThreads, kSmem, stream>>>(maps[0], maps[1], maps[2], maps[3], dq_map, args);
    *status = cudaGetLastError();
  }
  if (*status == cudaSuccess) {
    const size_t quads = elements / 4;
    const unsigned convert_blocks = static_cast<unsigned>((quads + 255) / 256);
    constexpr int kSlotQuads = static_cast<int>(kSlotFloats<D> / 4);
    static_assert(kSlotQuads % 256 == 0, "finish_kernel's blocks cover whole slots");
    const unsigned sum_blocks = static_cast<unsigned>(split.split) * (kSlotQuads / 256);
    finish_kernel<T, D><<<convert_blocks + sum_blocks, 256, 0, stream>>>(
        reinterpret_cast<const float4 *>(p.dq_accum), static_cast<uint2 *>(p.dq), quads, p.scale, convert_blocks,
        SplitSums{reinterpret_cast<const float4 *>(slots), static_cast<uint2 *>(p.dk), static_cast<uint2 *>(p.dv),
                  split.whole, split.pieces, row_blocks, p.seq});
    *status = cudaGetLastError();
  }
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
