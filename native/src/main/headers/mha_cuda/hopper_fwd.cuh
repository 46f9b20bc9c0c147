// The forward on Hopper (sm_90a), fp16 and bf16, head dim 64 and 128 (and e4m3 at 128:
// hopper_fwd_fp8.cuh): warpgroup MMA (wgmma) with operands in shared memory fed by the tensor memory
// accelerator (TMA), and warp specialization. Per work item, 64 query rows a consumer warpgroup, of
// one (batch, head): two consumers at head dim 128 and three at 64 (where each needs fewer
// registers, and a third keeps the tensor cores busy while two work through a softmax that at head
// dim 64 costs as much as the products). A block takes one item, or several in turn (work_item).
//  - A producer warpgroup, one thread of which loads K and V tiles of 128 keys (and Q once where it
//    is not in registers) with cp.async.bulk.tensor (128-byte swizzle) into Layout::kStages buffers
//    each, handing every buffer over on mbarriers (full: its bytes arrived; empty: every consumer
//    is done with it); it gives most of its registers to the consumers (setmaxnreg). K and V have barriers
//    of their own: K of tile t is free once S of tile t is done, half an iteration before V of tile
//    t-1, so the next K is on its way while the consumers still use V (one barrier for both would
//    hold each load until the end of an iteration, and the consumers would then wait for it).
//  - The consumer warpgroups, 64 rows each. At head dim 128 they hold their Q rows in registers
//    (read from global memory once), so that S = Q K^T reads only K from shared memory, whose
//    bandwidth the products' operands and the TMA writes otherwise come close to using up (at 64,
//    three consumers have no registers to spare for it). S = Q K^T of tile t and O += P V of tile
//    t-1 are issued together, and the source runs the softmax of tile t before it waits for P V.
//    ptxas 13.0 moves such a wait to the top of its basic block, ahead of the softmax (seen in the
//    machine code), so that the softmax overlaps only the other consumers' products. For fp16/bf16
//    at head dim 128 (key tiles of 128) a branch that is never taken ends the block after the
//    softmax (end_block_unless_negative; one to a trap made ptxas serialise every wgmma instead),
//    and O is rescaled before P V is issued, so that a consumer's softmax runs under its own P V
//    too (kOwnOverlap: where that paid). P goes to the second product from registers (the
//    accumulator layout of wgmma is the mma.sync fragment layout, as in flash_fwd.cuh's kernel).
// Layouts and helpers: hopper_common.cuh. Chosen at run time for devices of compute capability
// 9.0 when the library carries sm_90a code (launch_fwd in flash_fwd.cuh); MHA_DISABLE_SM90=1
// turns it off.
#ifndef MHA_CUDA_HOPPER_FWD_CUH
#define MHA_CUDA_HOPPER_FWD_CUH

#include "mha_cuda/hopper_common.cuh"

namespace mha::cuda::sm90 {

// Key tiles of kBlockN. (Tiles of 192 keys without a mask at head dim 128, with Q in shared memory
// to free the registers their scores need, gained 7-14 % over the kernel of 128-key tiles before
// its softmax ran under its own P V; after that they were 0.91-0.98x of it at seq 8192 and 16384.)
constexpr int kBlockN = 128, kMaxStages = 4;

// As many K/V stages as fit (next to Q where it is in shared memory) in the 227 KB a block may have
// (one block an SM either way: the register file is full): 3 at head dim 128, 4 at 64 and for e4m3
// (whose tiles are half the bytes). For e4m3 a V tile is V transposed (hopper_fwd_fp8.cuh): D rows
// of 128 keys.
template <typename T, int D>
struct Layout {
  static constexpr int kConsumers = D == 64 ? 3 : 2, kBlockM = 64 * kConsumers;
  static constexpr int kThreads = 128 * (kConsumers + 1);
  static constexpr bool kQInRegisters = D == 128;
  static constexpr int kQBytes = kQInRegisters ? 0 : kBlockM * D * sizeof(T), kKvBytes = kBlockN * D * sizeof(T);
  static constexpr int kStages = D == 64 || sizeof(T) == 1 ? 4 : 3;
  static constexpr int kTileBytes = kQBytes + 2 * kStages * kKvBytes;
  static constexpr int kSmem = kTileBytes + 1024 + 256;  // tiles, alignment slack, barriers
  static_assert(kStages <= kMaxStages && kSmem <= 227 * 1024, "the stages must fit in shared memory");
};

struct Barriers {
  uint64_t q_full, k_full[kMaxStages], k_empty[kMaxStages], v_full[kMaxStages], v_empty[kMaxStages];
};

#if defined(MHA_SM90_CODE)
// The running softmax state of a thread's two rows (row0 = its lane / 4 in its warp's 16, row1 = +8),
// maxima in raw score units.
struct RowState {
  float max0 = -INFINITY, max1 = -INFINITY, sum0 = 0.f, sum1 = 0.f;
};

// Turns the scores of keys n0.. into exp2 weights in place and moves the row maxima and sums on;
// returns the factors that rescale what O holds so far. s[4j+e] is row0 and key n0+8j+2(lane%4)+e,
// s[4j+2+e] the same key for row1. The weights come out times 2^P_LOG2 (at most that), and so do
// the sums (whatever divides by them cancels it).
template <bool CAUSAL, int P_LOG2, int N>
__device__ __forceinline__ float2 softmax_step(float (&s)[N / 2], RowState &st, int n0, int row0, int seq, bool mask,
                                               float scale_log2) {
  const int lane = threadIdx.x % kWarpSize;
  if (mask) {
#pragma unroll
    for (int j = 0; j < N / 8; ++j) {
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int key = n0 + 8 * j + 2 * (lane % 4) + e;
        if (key >= seq || (CAUSAL && key > row0)) s[4 * j + e] = -INFINITY;
        if (key >= seq || (CAUSAL && key > row0 + 8)) s[4 * j + 2 + e] = -INFINITY;
      }
    }
  }
  float tile0 = -INFINITY, tile1 = -INFINITY;
#pragma unroll
  for (int j = 0; j < N / 8; ++j) {
    tile0 = fmaxf(tile0, fmaxf(s[4 * j], s[4 * j + 1]));
    tile1 = fmaxf(tile1, fmaxf(s[4 * j + 2], s[4 * j + 3]));
  }
  const float new0 = fmaxf(st.max0, quad_max(tile0)), new1 = fmaxf(st.max1, quad_max(tile1));
  // In exp2 units; a row with nothing unmasked yet keeps a finite shift so exp2 gives 0, not NaN.
  const float shift0 = new0 == -INFINITY ? 0.f : new0 * scale_log2;
  const float shift1 = new1 == -INFINITY ? 0.f : new1 * scale_log2;
  const float2 rescale =
      make_float2(fast_exp2(st.max0 * scale_log2 - shift0), fast_exp2(st.max1 * scale_log2 - shift1));
  st.max0 = new0;
  st.max1 = new1;
  float add0 = 0.f, add1 = 0.f;
  const float weight_shift0 = P_LOG2 == 0 ? -shift0 : P_LOG2 - shift0;  // (0 - x is not -x when x is 0)
  const float weight_shift1 = P_LOG2 == 0 ? -shift1 : P_LOG2 - shift1;
#pragma unroll
  for (int j = 0; j < N / 8; ++j) {
    s[4 * j] = fast_exp2(fmaf(s[4 * j], scale_log2, weight_shift0));
    s[4 * j + 1] = fast_exp2(fmaf(s[4 * j + 1], scale_log2, weight_shift0));
    s[4 * j + 2] = fast_exp2(fmaf(s[4 * j + 2], scale_log2, weight_shift1));
    s[4 * j + 3] = fast_exp2(fmaf(s[4 * j + 3], scale_log2, weight_shift1));
    add0 += s[4 * j] + s[4 * j + 1];
    add1 += s[4 * j + 2] + s[4 * j + 3];
  }
  st.sum0 = st.sum0 * rescale.x + add0;
  st.sum1 = st.sum1 * rescale.y + add1;
  return rescale;
}

#endif  // MHA_SM90_CODE

struct KernelArgs {
  const void *q;
  void *out;
  float *lse;  // may be null
  int seq;
  float scale_log2;  // of the scores as the inputs give them
  float out_scale;   // what V's values stand for (1; e4m3: its per-tensor scale)
  int row_blocks;    // query blocks a head
  int items;         // row_blocks x heads (x batch): the work
};

// One work item: a query block of one (batch, head) and the key tiles it sees.
struct WorkItem {
  int m0, head, tiles;
};

// Items are numbered head by head (blocks working on one head at the same time share its K and V
// in L2), within a head heaviest causal block first. With a block an item, the grid is (query
// blocks, heads, batch) and a block's one item its own. With a persistent grid (PERSISTENT: G
// blocks, at most one an SM), block b takes items b, 2G - 1 - b, 2G + b, ... (every other round of
// the grid in reverse), so that the blocks' totals come out nearly even, and between items the
// producer is already loading the next item's tiles while the consumers finish the last one.
// HEADS_FIRST (a block an item only): the grid is (heads x batch, query blocks) instead, which hands
// out every head's heaviest causal block first, then every head's next one, and so on (heads_first).
// False when this block has no item of this round (nor later).
template <bool CAUSAL, int BLOCK_M, bool PERSISTENT, bool HEADS_FIRST>
__device__ __forceinline__ bool work_item(int round, const KernelArgs &args, WorkItem &w) {
  if constexpr (PERSISTENT) {
    const int g = static_cast<int>(gridDim.x), b = static_cast<int>(blockIdx.x);
    const int item = round * g + (round % 2 == 0 ? b : g - 1 - b);
    if (item >= args.items) return false;
    const int i = item % args.row_blocks;
    w.head = item / args.row_blocks;
    w.m0 = (CAUSAL ? args.row_blocks - 1 - i : i) * BLOCK_M;
  } else if constexpr (HEADS_FIRST) {
    w.head = blockIdx.x;
    w.m0 = static_cast<int>(gridDim.y - 1 - blockIdx.y) * BLOCK_M;  // heaviest causal block first
  } else {
    w.head = blockIdx.z * gridDim.y + blockIdx.y;
    w.m0 = query_block<CAUSAL>() * BLOCK_M;
  }
  const int kv_end = CAUSAL ? min(args.seq, w.m0 + BLOCK_M) : args.seq;
  w.tiles = (kv_end + kBlockN - 1) / kBlockN;
  return true;
}

// Whether a grid of a block an item hands out its items heads first (work_item): for the causal
// forward at head dim 64, whose 192-row query blocks differ most in length, so that the longest
// go first across all heads and the grid's tail is short. Timed against the order head by head
// (compare-fwd): 1.06-1.08x at seq 4096 (H100, H200), 1.03x at 8192 (H100), 1.00-1.01x at 16384
// (though 2-4 % slower there than head by head across whole check.py runs). Elsewhere
// head by head did better, blocks running together sharing a head's K and V in L2 (heads first
// was 0.80-0.99x at head dim 128 and without a mask, measured before the persistent grid).
template <bool CAUSAL, int D>
__host__ __device__ constexpr bool heads_first() {
  return CAUSAL && D == 64;
}

// Whether the forward runs persistent, one block an SM at most: the causal forward at head dim 128
// up to 64 query blocks a head (seq 8192), whose items are short enough that starting each with
// empty buffers shows (H100, standalone harness: seq 1024 1.25x, 4096 1.05-1.10x, 8192
// 1.02-1.04x; at 16384 0.98-0.99x, where the hardware's own dispatch of a block an item balances
// the long items better). Otherwise a block an item: without a mask that did better too (0.94-0.98x
// persistent at head dim 128; at 64, where Q waited in shared memory until the last item was done
// with it, 0.80-0.93x).
template <bool CAUSAL, int D>
constexpr bool persistent_for(int row_blocks) {
  return CAUSAL && D == 128 && row_blocks <= 64;
}

// Inputs of T, output of O (T but for e4m3 inputs, whose output is fp16 or bf16). For e4m3, tv maps
// V transposed, keys in the order to_operand hands P over (hopper_fwd_fp8.cuh writes it), and P is
// quantised at 256 times its value: e4m3 keeps 3 bits of mantissa at any magnitude from 2^-6 up to
// 448, so weights down to 2^-14 of the row maximum keep their precision, where P itself would lose
// every weight below 2^-9. A PERSISTENT kernel's blocks take several items in turn (work_item).
template <typename T, int D, bool CAUSAL, typename O, bool PERSISTENT>
__global__ void MHA_SM90_LAUNCH_BOUNDS((Layout<T, D>::kThreads))
    fwd_kernel(const __grid_constant__ CUtensorMap tq, const __grid_constant__ CUtensorMap tk,
               const __grid_constant__ CUtensorMap tv, const KernelArgs args) {
#if defined(MHA_SM90_CODE)
  using L = Layout<T, D>;
  static_assert(!PERSISTENT || L::kQInRegisters, "a persistent block loads Q for each item into registers");
  constexpr bool kE4m3 = std::is_same<T, e4m3>::value;
  constexpr int kPLog2 = kE4m3 ? 8 : 0;
  constexpr int kStages = L::kStages, kConsumers = L::kConsumers, kBlockM = L::kBlockM;
  // Whether a consumer's softmax runs under its own P V (the order FlashAttention-3 uses): O is
  // rescaled for tile t-1 before P V of tile t-1 is issued rather than after it, and the wait for
  // that product stays after the softmax (end_block_unless_negative). fp16/bf16 at head dim 128
  // gained 2-9 % (H100 and H200, check.py compare-fwd); head dim 64 (three consumers, whose
  // softmaxes already fill the time of each other's products) 0.97-1.02x and e4m3 0.91-1.05x, so
  // these keep the order where O is rescaled after P V.
  constexpr bool kOwnOverlap = D == 128 && !kE4m3;
  constexpr bool kHeadsFirst = !PERSISTENT && heads_first<CAUSAL, D>();
  extern __shared__ unsigned char raw[];
  unsigned char *base = reinterpret_cast<unsigned char *>((reinterpret_cast<uintptr_t>(raw) + 1023) & ~uintptr_t(1023));
  unsigned char *q_s = base;  // when Q is not in registers
  auto k_s = [&](int stage) { return base + L::kQBytes + stage * 2 * L::kKvBytes; };
  auto v_s = [&](int stage) { return base + L::kQBytes + stage * 2 * L::kKvBytes + L::kKvBytes; };
  Barriers &bar = *reinterpret_cast<Barriers *>(base + L::kTileBytes);

  const int seq = args.seq;
  const int wg = threadIdx.x / 128;
  // The block's t-th tile (counted over all its items) uses buffer t % kStages, on its
  // (t / kStages)-th round: the parity its full barrier completes with, and the one the producer
  // waits for before reusing the buffer.
  auto phase = [](int t) { return (t / kStages) & 1; };

  if (threadIdx.x == 0) {
    bar_init(&bar.q_full, 1);
    for (int s = 0; s < kStages; ++s) {
      bar_init(&bar.k_full[s], 1);
      bar_init(&bar.v_full[s], 1);
      bar_init(&bar.k_empty[s], kConsumers * 128);
      bar_init(&bar.v_empty[s], kConsumers * 128);
    }
    bar_init_fence();
  }
  __syncthreads();

  if (wg == 0) {  // the producer; rows past seq arrive as zeros
    producer_registers<kConsumers>();
    if (threadIdx.x == 0) {
      WorkItem w;
      for (int round = 0, it = 0; work_item<CAUSAL, kBlockM, PERSISTENT, kHeadsFirst>(round, args, w); ++round) {
        if constexpr (!L::kQInRegisters) {
          bar_expect(&bar.q_full, L::kQBytes);
          tma_load_tile<D, sizeof(T)>(q_s, kBlockM, &tq, &bar.q_full, w.m0, w.head);
        }
        for (int t = 0; t < w.tiles; ++t, ++it) {
          const int stage = it % kStages;
          if (it >= kStages) bar_wait(&bar.k_empty[stage], phase(it) ^ 1);
          bar_expect(&bar.k_full[stage], L::kKvBytes);
          tma_load_tile<D, sizeof(T)>(k_s(stage), kBlockN, &tk, &bar.k_full[stage], t * kBlockN, w.head);
          if (it >= kStages) bar_wait(&bar.v_empty[stage], phase(it) ^ 1);
          bar_expect(&bar.v_full[stage], L::kKvBytes);
          if constexpr (kE4m3) {  // D rows (head dims) of keys t * kBlockN..
            tma_load(v_s(stage), &tv, &bar.v_full[stage], t * kBlockN, 0, w.head);
          } else {
            tma_load_tile<D, sizeof(T)>(v_s(stage), kBlockN, &tv, &bar.v_full[stage], t * kBlockN, w.head);
          }
        }
        if constexpr (!PERSISTENT) break;
      }
    }
    return;
  }
  consumer_registers<kConsumers>();

  const int consumer = wg - 1, warp = threadIdx.x % 128 / kWarpSize, lane = threadIdx.x % kWarpSize;
  float o[D / 2], s[kBlockN / 2];
  uint32_t p[k_steps<T, kBlockN>()][4];
  uint32_t q[L::kQInRegisters ? k_steps<T, D>() : 1][4];
  const unsigned char *q_rows = q_s + consumer * 64 * 128;  // its rows inside each Q atom
  auto issue_pv = [&](int stage) {  // O += P V
    if constexpr (kE4m3) {
      issue_rk<T, kBlockN, D, true>(o, p, v_s(stage));
    } else {
      issue_rs<T, kBlockN, D>(o, p, v_s(stage));
    }
  };
  auto scale_o = [&](float2 factor) {  // O's rows to new maxima
#pragma unroll
    for (int j = 0; j < D / 8; ++j) {
      o[4 * j] *= factor.x;
      o[4 * j + 1] *= factor.x;
      o[4 * j + 2] *= factor.y;
      o[4 * j + 3] *= factor.y;
    }
  };
  auto issue_s = [&](int stage) {  // S = Q K^T
    if constexpr (L::kQInRegisters) {
      issue_rk<T, D, kBlockN>(s, q, k_s(stage));
    } else {
      issue_ss<T, D, kBlockN>(s, q_rows, kBlockM * 128, k_s(stage));
    }
  };

  WorkItem w;
  for (int round = 0, it = 0; work_item<CAUSAL, kBlockM, PERSISTENT, kHeadsFirst>(round, args, w); ++round, it += w.tiles) {
    const int first_row = w.m0 + consumer * 64;
    const int row0 = first_row + warp * 16 + lane / 4, row1 = row0 + 8;
    auto masked = [&](int n0) { return n0 + kBlockN > seq || (CAUSAL && n0 + kBlockN - 1 > first_row); };
    const size_t rows_before = static_cast<size_t>(w.head) * seq;
    if constexpr (L::kQInRegisters) {
      load_operand<T, D>(q, static_cast<const T *>(args.q) + rows_before * D, row0, seq);
    } else {
      bar_wait(&bar.q_full, 0);
    }
#pragma unroll
    for (int i = 0; i < D / 2; ++i) o[i] = 0.f;
    RowState st;

    bar_wait(&bar.k_full[it % kStages], phase(it));
    wgmma_fence();
    issue_s(it % kStages);
    wgmma_commit();
    wgmma_wait<0>();
    pin(s);
    bar_arrive(&bar.k_empty[it % kStages]);
    float2 rescale = softmax_step<CAUSAL, kPLog2, kBlockN>(s, st, 0, row0, seq, masked(0), args.scale_log2);
    to_operand<T, kBlockN>(p, s);

    if constexpr (kOwnOverlap) {
      // Tile t, 1 <= t < w.tiles: S of tile t; O to tile t-1's maxima while S runs, then P V of tile
      // t-1, under which the softmax of tile t runs. (A lambda rather than the loop's body: what nvcc
      // made of it ran 1-4 % faster on an H100; head dim 64's loop was up to 2 % slower so.)
      auto step = [&](int t) {
        const int stage = (it + t) % kStages, previous = (it + t - 1) % kStages;
        bar_wait(&bar.k_full[stage], phase(it + t));
        wgmma_fence();
        issue_s(stage);
        wgmma_commit();
        scale_o(rescale);
        bar_wait(&bar.v_full[previous], phase(it + t - 1));
        wgmma_fence();
        issue_pv(previous);
        wgmma_commit();
        wgmma_wait<1>();  // S of tile t is ready, so K of tile t is free
        pin(s);
        bar_arrive(&bar.k_empty[stage]);
        rescale =
            softmax_step<CAUSAL, kPLog2, kBlockN>(s, st, t * kBlockN, row0, seq, masked(t * kBlockN), args.scale_log2);
        end_block_unless_negative(st.sum0);
        wgmma_wait<0>();
        pin(o);
        bar_arrive(&bar.v_empty[previous]);
        to_operand<T, kBlockN>(p, s);
      };
      for (int t = 1; t < w.tiles; ++t) step(t);
      scale_o(rescale);
    } else {
      for (int t = 1; t < w.tiles; ++t) {  // S of tile t and P V of tile t-1, the softmax between
        const int stage = (it + t) % kStages, previous = (it + t - 1) % kStages;
        bar_wait(&bar.k_full[stage], phase(it + t));
        bar_wait(&bar.v_full[previous], phase(it + t - 1));
        wgmma_fence();
        issue_s(stage);
        wgmma_commit();
        issue_pv(previous);
        wgmma_commit();
        wgmma_wait<1>();  // S of tile t is ready, so K of tile t is free; P V of tile t-1 still runs
        pin(s);
        bar_arrive(&bar.k_empty[stage]);
        rescale =
            softmax_step<CAUSAL, kPLog2, kBlockN>(s, st, t * kBlockN, row0, seq, masked(t * kBlockN), args.scale_log2);
        wgmma_wait<0>();
        pin(o);
        bar_arrive(&bar.v_empty[previous]);
        scale_o(rescale);
        to_operand<T, kBlockN>(p, s);
      }
    }
    const int last = (it + w.tiles - 1) % kStages;
    bar_wait(&bar.v_full[last], phase(it + w.tiles - 1));
    wgmma_fence();
    issue_pv(last);
    wgmma_commit();
    wgmma_wait<0>();
    pin(o);
    if constexpr (PERSISTENT) bar_arrive(&bar.v_empty[last]);

    const float sum0 = quad_sum(st.sum0), sum1 = quad_sum(st.sum1);
    store_accumulator<O, D>(args.out, o, rows_before, row0, seq, output_factor(sum0) * args.out_scale,
                            output_factor(sum1) * args.out_scale);
    if (args.lse != nullptr && lane % 4 == 0) {
      if (row0 < seq) args.lse[rows_before + row0] = (st.max0 * args.scale_log2 - kPLog2) * kLn2 + logf(sum0);
      if (row1 < seq) args.lse[rows_before + row1] = (st.max1 * args.scale_log2 - kPLog2) * kLn2 + logf(sum1);
    }
    if constexpr (!PERSISTENT) break;
  }
#endif  // MHA_SM90_CODE
}

// Launches the forward over `args.items` work items (`heads` a batch), persistent where
// persistent_for says so; false, having launched nothing, when its sm_90a kernel does not run on
// this device.
template <typename T, int D, bool CAUSAL, typename O>
bool launch_items(const CUtensorMap &tq, const CUtensorMap &tk, const CUtensorMap &tv, const KernelArgs &args,
                  int heads, cudaStream_t stream) {
  using L = Layout<T, D>;
  if constexpr (persistent_for<CAUSAL, D>(1)) {
    constexpr auto *kernel = fwd_kernel<T, D, CAUSAL, O, true>;
    const int sms = multiprocessors();
    if (persistent_for<CAUSAL, D>(args.row_blocks) && sms > 0) {
      if (!usable_on_current_device<kernel, L::kSmem, L::kThreads>()) return false;
      kernel<<<args.items < sms ? args.items : sms, L::kThreads, L::kSmem, stream>>>(tq, tk, tv, args);
      return true;
    }
  }
  constexpr auto *kernel = fwd_kernel<T, D, CAUSAL, O, false>;
  if (!usable_on_current_device<kernel, L::kSmem, L::kThreads>()) return false;
  const int heads_total = args.items / args.row_blocks;
  const dim3 grid = heads_first<CAUSAL, D>() ? dim3(heads_total, args.row_blocks)
                                              : dim3(args.row_blocks, heads, heads_total / heads);
  kernel<<<grid, L::kThreads, L::kSmem, stream>>>(tq, tk, tv, args);
  return true;
}

// Runs the sm_90a forward when it applies: the tensor maps (boxes of the block's rows and of a key
// tile) and the launch; returns false, having launched nothing, when the TMA unit cannot take the
// inputs (16-byte alignment) or the kernel does not run on this device.
template <typename T, int D, bool CAUSAL>
bool try_launch_fwd(const FwdParams &p, cudaStream_t stream, cudaError_t *status) {
  static_assert(D == 64 || D == 128, "sm_90a instances exist for head dims 64 and 128");
  using L = Layout<T, D>;
  const int heads_total = p.batch * p.heads;
  CUtensorMap tq{}, tk, tv;
  if (reinterpret_cast<uintptr_t>(p.q) % 4 != 0 ||
      (!L::kQInRegisters && !tensor_map<T, D>(&tq, p.q, heads_total, p.seq, L::kBlockM)) ||
      !tensor_map<T, D>(&tk, p.k, heads_total, p.seq, kBlockN) ||
      !tensor_map<T, D>(&tv, p.v, heads_total, p.seq, kBlockN)) {
    return false;
  }
  const int row_blocks = (p.seq + L::kBlockM - 1) / L::kBlockM;
  const KernelArgs args{p.q, p.out, p.lse, p.seq, p.scale * kLog2e, 1.0f, row_blocks, row_blocks * heads_total};
  if (!launch_items<T, D, CAUSAL, T>(tq, tk, tv, args, p.heads, stream)) {
    return false;
  }
  *status = cudaGetLastError();
  return true;
}

}  // namespace mha::cuda::sm90

#endif
