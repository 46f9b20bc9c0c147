// The forward on Hopper (sm_90a), fp16 and bf16, head dim 64 and 128: warpgroup MMA (wgmma) with
// operands in shared memory fed by the tensor memory accelerator (TMA), and warp specialization.
// Per block, 128 query rows of one (batch, head):
//  - a producer warpgroup, one thread of which loads Q once and K/V tiles of 128 keys into kStages
//    buffers with cp.async.bulk.tensor (128-byte swizzle), handing each buffer over on mbarriers
//    (full: its bytes arrived; empty: both consumers are done with it); it gives most of its
//    registers to the consumers (setmaxnreg);
//  - two consumer warpgroups of 64 rows each that overlap inside the warpgroup: S = Q K^T of tile t
//    and O += P V of tile t-1 are issued together, and the softmax of tile t runs while the tensor
//    cores finish P V. P goes to the second product from registers (the accumulator layout of
//    wgmma is the mma.sync fragment layout, as in flash_fwd.cuh's kernel).
// Shared-memory layouts (verified by native/hopper/wgmma_probe.cu): a tile of rows x D is D/64
// atoms of rows x 64 elements (128 bytes a row, 16-byte chunks XOR-swizzled by row % 8, what the
// TMA's 128-byte swizzle writes); Q and K are wgmma's K-major operands, V the N-major
// (transposed) B operand. Chosen at run time for devices of compute capability 9.0 when the
// library carries sm_90a code (launch_fwd in flash_fwd.cuh); MHA_DISABLE_SM90=1 turns it off.
#ifndef MHA_CUDA_HOPPER_FWD_CUH
#define MHA_CUDA_HOPPER_FWD_CUH

#include <cuda.h>  // CUtensorMap and its enums only: the driver function is looked up at run time
#include <dlfcn.h>

#include <cstdlib>

#include "mha_cuda/common.cuh"

namespace mha::cuda::sm90 {

constexpr int kConsumers = 2, kBlockM = 64 * kConsumers, kBlockN = 128, kThreads = 128 * (kConsumers + 1);
constexpr int kStages = 2;

template <int D>
struct Layout {
  static constexpr int kQBytes = kBlockM * D * 2, kKvBytes = kBlockN * D * 2;
  static constexpr int kTileBytes = kQBytes + 2 * kStages * kKvBytes;
  static constexpr int kSmem = kTileBytes + 1024 + 64;  // tiles, alignment slack, barriers
};

struct Barriers {
  uint64_t q_full, full[kStages], empty[kStages];
};

// wgmma, setmaxnreg and the tensor copies exist only in sm_90a code; the sm_80 pass of the same
// translation unit compiles an empty kernel that is never launched.
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define MHA_SM90_CODE 1

__device__ __forceinline__ void bar_init(uint64_t *bar, int count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(shared_address(bar)), "r"(count));
}
// One arrival that also announces `bytes` the TMA unit will deliver.
__device__ __forceinline__ void bar_expect(uint64_t *bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(shared_address(bar)), "r"(bytes)
               : "memory");
}
__device__ __forceinline__ void bar_arrive(uint64_t *bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(shared_address(bar)) : "memory");
}
__device__ __forceinline__ void bar_wait(uint64_t *bar, int parity) {
  asm volatile(
      "{\n.reg .pred done;\nWAIT:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra WAIT;\n}\n" ::"r"(shared_address(bar)),
      "r"(parity)
      : "memory");
}
// A box of 64 columns x 128 rows of head `head` into one swizzled atom at `dst`.
__device__ __forceinline__ void tma_load(void *dst, const CUtensorMap *map, uint64_t *bar, int col, int row,
                                         int head) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3, %4}], [%5];\n" ::"r"(shared_address(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(col), "r"(row), "r"(head), "r"(shared_address(bar))
      : "memory");
}

// A shared-memory matrix descriptor with the 128-byte swizzle.
__device__ __forceinline__ uint64_t descriptor(const void *p, int lbo, int sbo) {
  return static_cast<uint64_t>((shared_address(p) >> 4) & 0x3fff) |
         static_cast<uint64_t>((lbo >> 4) & 0x3fff) << 16 | static_cast<uint64_t>((sbo >> 4) & 0x3fff) << 32 |
         static_cast<uint64_t>(1) << 62;
}

#define MHA_REGS32                                                                                         \
  "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27," \
  "%28,%29,%30,%31}"
#define MHA_REGS64                                                                                          \
  "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27," \
  "%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,"   \
  "%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}"
#define MHA_OUT8(c, i) "+f"(c[i]), "+f"(c[i + 1]), "+f"(c[i + 2]), "+f"(c[i + 3]), "+f"(c[i + 4]), \
  "+f"(c[i + 5]), "+f"(c[i + 6]), "+f"(c[i + 7])
#define MHA_OUT32(c) MHA_OUT8(c, 0), MHA_OUT8(c, 8), MHA_OUT8(c, 16), MHA_OUT8(c, 24)
#define MHA_OUT64(c) MHA_OUT32(c), MHA_OUT8(c, 32), MHA_OUT8(c, 40), MHA_OUT8(c, 48), MHA_OUT8(c, 56)
// S (+)= Q K^T, m64n128k16, both operands in shared memory (K-major).
#define MHA_WGMMA_SS(type)                                                                                   \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"                                                  \
               "wgmma.mma_async.sync.aligned.m64n128k16.f32." type "." type " " MHA_REGS64                   \
               ", %64, %65, p, 1, 1, 0, 0;\n}\n"                                                             \
               : MHA_OUT64(c)                                                                                \
               : "l"(da), "l"(db), "r"(accumulate))
template <typename T>
__device__ __forceinline__ void mma_qk(float (&c)[64], uint64_t da, uint64_t db, int accumulate) {
  if constexpr (std::is_same<T, __half>::value) MHA_WGMMA_SS("f16"); else MHA_WGMMA_SS("bf16");
}

// O += P V, m64nNk16 with N the head dim (128 here, 64 below): P from registers, V N-major.
template <typename T>
__device__ __forceinline__ void mma_pv(float (&c)[64], const uint32_t (&a)[4], uint64_t db) {
  if constexpr (std::is_same<T, __half>::value) {
    asm volatile("wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 " MHA_REGS64
                 ", {%64,%65,%66,%67}, %68, 1, 1, 1, 1;\n"
                 : MHA_OUT64(c) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db));
  } else {
    asm volatile("wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 " MHA_REGS64
                 ", {%64,%65,%66,%67}, %68, 1, 1, 1, 1;\n"
                 : MHA_OUT64(c) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db));
  }
}

template <typename T>
__device__ __forceinline__ void mma_pv(float (&c)[32], const uint32_t (&a)[4], uint64_t db) {
  if constexpr (std::is_same<T, __half>::value) {
    asm volatile("wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 " MHA_REGS32
                 ", {%32,%33,%34,%35}, %36, 1, 1, 1, 1;\n"
                 : MHA_OUT32(c) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db));
  } else {
    asm volatile("wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 " MHA_REGS32
                 ", {%32,%33,%34,%35}, %36, 1, 1, 1, 1;\n"
                 : MHA_OUT32(c) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db));
  }
}

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}
// Keeps the compiler from reading accumulators before the wait that completes them.
template <int N>
__device__ __forceinline__ void pin(float (&r)[N]) {
#pragma unroll
  for (int i = 0; i < N; ++i) asm volatile("" : "+f"(r[i])::"memory");
}

// The running softmax state of a thread's two rows (row0 = its lane / 4 in its warp's 16, row1 = +8),
// maxima in raw score units.
struct RowState {
  float max0 = -INFINITY, max1 = -INFINITY, sum0 = 0.f, sum1 = 0.f;
};

// Turns the scores of keys n0.. into exp2 weights in place and moves the row maxima and sums on;
// returns the factors that rescale what O holds so far. s[4j+e] is row0 and key n0+8j+2(lane%4)+e,
// s[4j+2+e] the same key for row1.
template <bool CAUSAL>
__device__ __forceinline__ float2 softmax_step(float (&s)[64], RowState &st, int n0, int row0, int seq, bool mask,
                                               float scale_log2) {
  const int lane = threadIdx.x % kWarpSize;
  if (mask) {
#pragma unroll
    for (int j = 0; j < 16; ++j) {
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
  for (int j = 0; j < 16; ++j) {
    tile0 = fmaxf(tile0, fmaxf(s[4 * j], s[4 * j + 1]));
    tile1 = fmaxf(tile1, fmaxf(s[4 * j + 2], s[4 * j + 3]));
  }
#pragma unroll
  for (int offset = 1; offset <= 2; offset *= 2) {
    tile0 = fmaxf(tile0, __shfl_xor_sync(kFullMask, tile0, offset));
    tile1 = fmaxf(tile1, __shfl_xor_sync(kFullMask, tile1, offset));
  }
  const float new0 = fmaxf(st.max0, tile0), new1 = fmaxf(st.max1, tile1);
  // In exp2 units; a row with nothing unmasked yet keeps a finite shift so exp2 gives 0, not NaN.
  const float shift0 = new0 == -INFINITY ? 0.f : new0 * scale_log2;
  const float shift1 = new1 == -INFINITY ? 0.f : new1 * scale_log2;
  const float2 rescale = make_float2(exp2f(st.max0 * scale_log2 - shift0), exp2f(st.max1 * scale_log2 - shift1));
  st.max0 = new0;
  st.max1 = new1;
  float add0 = 0.f, add1 = 0.f;
#pragma unroll
  for (int j = 0; j < 16; ++j) {
    s[4 * j] = exp2f(fmaf(s[4 * j], scale_log2, -shift0));
    s[4 * j + 1] = exp2f(fmaf(s[4 * j + 1], scale_log2, -shift0));
    s[4 * j + 2] = exp2f(fmaf(s[4 * j + 2], scale_log2, -shift1));
    s[4 * j + 3] = exp2f(fmaf(s[4 * j + 3], scale_log2, -shift1));
    add0 += s[4 * j] + s[4 * j + 1];
    add1 += s[4 * j + 2] + s[4 * j + 3];
  }
  st.sum0 = st.sum0 * rescale.x + add0;
  st.sum1 = st.sum1 * rescale.y + add1;
  return rescale;
}

// The weights as wgmma's register A operand, 16 keys per k-step.
template <typename T>
__device__ __forceinline__ void to_operand(uint32_t (&p)[8][4], const float (&s)[64]) {
#pragma unroll
  for (int kk = 0; kk < 8; ++kk) {
    p[kk][0] = pack2<T>(s[8 * kk], s[8 * kk + 1]);      // row0, keys 16kk + 2(lane%4), +1
    p[kk][1] = pack2<T>(s[8 * kk + 2], s[8 * kk + 3]);  // row1
    p[kk][2] = pack2<T>(s[8 * kk + 4], s[8 * kk + 5]);  // row0, keys 16kk + 8 + 2(lane%4), +1
    p[kk][3] = pack2<T>(s[8 * kk + 6], s[8 * kk + 7]);  // row1
  }
}

template <typename T, int D>
__device__ __forceinline__ void issue_qk(float (&s)[64], const unsigned char *q_rows, const unsigned char *k_tile) {
#pragma unroll
  for (int ks = 0; ks < D / 16; ++ks) {  // 4 k-steps of 16 per 64-column atom
    mma_qk<T>(s, descriptor(q_rows + (ks / 4) * kBlockM * 128 + (ks % 4) * 32, 16, 1024),
              descriptor(k_tile + (ks / 4) * kBlockN * 128 + (ks % 4) * 32, 16, 1024), ks > 0);
  }
}

template <typename T, int D>
__device__ __forceinline__ void issue_pv(float (&o)[D / 2], const uint32_t (&p)[8][4], const unsigned char *v_tile) {
#pragma unroll
  for (int kk = 0; kk < kBlockN / 16; ++kk) {
    mma_pv<T>(o, p[kk], descriptor(v_tile + kk * 16 * 128, kBlockN * 128, 1024));
  }
}
#endif  // __CUDA_ARCH_FEAT_SM90_ALL

struct KernelArgs {
  void *out;
  float *lse;  // may be null
  int seq;
  float scale_log2;
};

template <typename T, int D, bool CAUSAL>
__global__ void __launch_bounds__(kThreads, 1)
    fwd_kernel(const __grid_constant__ CUtensorMap tq, const __grid_constant__ CUtensorMap tk,
               const __grid_constant__ CUtensorMap tv, const KernelArgs args) {
#if defined(MHA_SM90_CODE)
  using L = Layout<D>;
  extern __shared__ unsigned char raw[];
  unsigned char *base = reinterpret_cast<unsigned char *>((reinterpret_cast<uintptr_t>(raw) + 1023) & ~uintptr_t(1023));
  unsigned char *q_s = base;
  auto k_s = [&](int stage) { return base + L::kQBytes + stage * 2 * L::kKvBytes; };
  auto v_s = [&](int stage) { return base + L::kQBytes + stage * 2 * L::kKvBytes + L::kKvBytes; };
  Barriers &bar = *reinterpret_cast<Barriers *>(base + L::kTileBytes);

  const int seq = args.seq;
  const int m0 = query_block<CAUSAL>() * kBlockM;
  const int head = blockIdx.z * gridDim.y + blockIdx.y;
  const int kv_end = CAUSAL ? min(seq, m0 + kBlockM) : seq;
  const int tiles = (kv_end + kBlockN - 1) / kBlockN;
  const int wg = threadIdx.x / 128;

  if (threadIdx.x == 0) {
    bar_init(&bar.q_full, 1);
    for (int s = 0; s < kStages; ++s) {
      bar_init(&bar.full[s], 1);
      bar_init(&bar.empty[s], kConsumers * 128);
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();

  if (wg == 0) {  // the producer; rows past seq arrive as zeros
    asm volatile("setmaxnreg.dec.sync.aligned.u32 24;\n");
    if (threadIdx.x == 0) {
      bar_expect(&bar.q_full, L::kQBytes);
      for (int a = 0; a < D / 64; ++a) tma_load(q_s + a * kBlockM * 128, &tq, &bar.q_full, a * 64, m0, head);
      for (int t = 0; t < tiles; ++t) {
        const int stage = t % kStages;
        if (t >= kStages) bar_wait(&bar.empty[stage], ((t / kStages) & 1) ^ 1);
        bar_expect(&bar.full[stage], 2 * L::kKvBytes);
        for (int a = 0; a < D / 64; ++a) {
          tma_load(k_s(stage) + a * kBlockN * 128, &tk, &bar.full[stage], a * 64, t * kBlockN, head);
          tma_load(v_s(stage) + a * kBlockN * 128, &tv, &bar.full[stage], a * 64, t * kBlockN, head);
        }
      }
    }
    return;
  }
  asm volatile("setmaxnreg.inc.sync.aligned.u32 240;\n");

  const int consumer = wg - 1, warp = threadIdx.x % 128 / kWarpSize, lane = threadIdx.x % kWarpSize;
  const int first_row = m0 + consumer * 64;
  const int row0 = first_row + warp * 16 + lane / 4, row1 = row0 + 8;
  const unsigned char *q_rows = q_s + consumer * 64 * 128;  // its rows inside each Q atom
  auto masked = [&](int n0) { return n0 + kBlockN > seq || (CAUSAL && n0 + kBlockN - 1 > first_row); };

  float o[D / 2], s[64];
  uint32_t p[8][4];
#pragma unroll
  for (int i = 0; i < D / 2; ++i) o[i] = 0.f;
  RowState st;

  bar_wait(&bar.q_full, 0);
  bar_wait(&bar.full[0], 0);
  wgmma_fence();
  issue_qk<T, D>(s, q_rows, k_s(0));
  wgmma_commit();
  wgmma_wait<0>();
  pin(s);
  softmax_step<CAUSAL>(s, st, 0, row0, seq, masked(0), args.scale_log2);
  to_operand<T>(p, s);

  for (int t = 1; t < tiles; ++t) {
    const int stage = t % kStages, previous = (t - 1) % kStages;
    bar_wait(&bar.full[stage], (t / kStages) & 1);
    wgmma_fence();
    issue_qk<T, D>(s, q_rows, k_s(stage));
    wgmma_commit();
    issue_pv<T, D>(o, p, v_s(previous));
    wgmma_commit();
    wgmma_wait<1>();  // S of tile t is ready; P V of tile t-1 still runs
    pin(s);
    const float2 rescale = softmax_step<CAUSAL>(s, st, t * kBlockN, row0, seq, masked(t * kBlockN), args.scale_log2);
    wgmma_wait<0>();
    pin(o);
    bar_arrive(&bar.empty[previous]);
#pragma unroll
    for (int j = 0; j < D / 8; ++j) {
      o[4 * j] *= rescale.x;
      o[4 * j + 1] *= rescale.x;
      o[4 * j + 2] *= rescale.y;
      o[4 * j + 3] *= rescale.y;
    }
    to_operand<T>(p, s);
  }
  wgmma_fence();
  issue_pv<T, D>(o, p, v_s((tiles - 1) % kStages));
  wgmma_commit();
  wgmma_wait<0>();
  pin(o);

  float sum0 = st.sum0, sum1 = st.sum1;
#pragma unroll
  for (int offset = 1; offset <= 2; offset *= 2) {
    sum0 += __shfl_xor_sync(kFullMask, sum0, offset);
    sum1 += __shfl_xor_sync(kFullMask, sum1, offset);
  }
  const float inv0 = sum0 > 0.f ? kVariantOutputScale / sum0 : 0.f;
  const float inv1 = sum1 > 0.f ? kVariantOutputScale / sum1 : 0.f;
  const size_t rows_before = static_cast<size_t>(head) * seq;
  uint32_t *out = static_cast<uint32_t *>(args.out);  // pairs of 16-bit values
#pragma unroll
  for (int j = 0; j < D / 8; ++j) {
    const int pair = (8 * j + 2 * (lane % 4)) / 2;
    if (row0 < seq) out[((rows_before + row0) * D) / 2 + pair] = pack2<T>(o[4 * j] * inv0, o[4 * j + 1] * inv0);
    if (row1 < seq) out[((rows_before + row1) * D) / 2 + pair] = pack2<T>(o[4 * j + 2] * inv1, o[4 * j + 3] * inv1);
  }
  if (args.lse != nullptr && lane % 4 == 0) {
    if (row0 < seq) args.lse[rows_before + row0] = st.max0 * args.scale_log2 * kLn2 + logf(sum0);
    if (row1 < seq) args.lse[rows_before + row1] = st.max1 * args.scale_log2 * kLn2 + logf(sum1);
  }
#endif  // MHA_SM90_CODE
}

// cuTensorMapEncodeTiled from the driver the CUDA runtime has loaded (libcuda.so.1): a driver
// function, so it is taken from the driver itself rather than through the runtime, whose version
// (static, shared, or a stub that loads 12 or 13) then does not matter. Null when absent.
using EncodeTiled = CUresult (*)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                                 const cuuint64_t *, const cuuint32_t *, const cuuint32_t *, CUtensorMapInterleave,
                                 CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
inline EncodeTiled encode_tiled() {
  static const EncodeTiled encode = [] {
    void *driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    return driver == nullptr ? nullptr : reinterpret_cast<EncodeTiled>(dlsym(driver, "cuTensorMapEncodeTiled"));
  }();
  return encode;
}

// [batch * heads][seq][D] as a 3-D tensor for the TMA unit: boxes of 64 columns x 128 rows of one
// head, 128-byte swizzle; rows past seq read as zeros.
template <typename T, int D>
bool tensor_map(CUtensorMap *map, const void *data, int heads_total, int seq) {
  const cuuint64_t dims[3] = {D, static_cast<cuuint64_t>(seq), static_cast<cuuint64_t>(heads_total)};
  const cuuint64_t strides[2] = {D * sizeof(T), static_cast<cuuint64_t>(seq) * D * sizeof(T)};
  const cuuint32_t box[3] = {64, kBlockN, 1}, element_strides[3] = {1, 1, 1};
  static_assert(kBlockN == kBlockM, "Q and K/V tiles share the box");
  return encode_tiled()(map, std::is_same<T, __half>::value ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                                            : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
                        3, const_cast<void *>(data), dims, strides, box, element_strides,
                        CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

// Whether this instance runs on the current device: compute capability 9.0, sm_90a code for it in
// the library (the binary the runtime picked is version 90), the shared memory granted, and not
// turned off with MHA_DISABLE_SM90. Decided once per device.
template <typename T, int D, bool CAUSAL>
bool usable_on_current_device() {
  static const bool disabled = [] {
    const char *value = std::getenv("MHA_DISABLE_SM90");
    return value != nullptr && value[0] != '\0' && value[0] != '0';
  }();
  constexpr int kMaxDevices = 64;
  static signed char decided[kMaxDevices];  // 0: not yet, 1: yes, -1: no (a race decides twice, alike)
  int device = 0;
  if (disabled || encode_tiled() == nullptr || cudaGetDevice(&device) != cudaSuccess || device >= kMaxDevices) {
    return false;
  }
  if (decided[device] == 0) {
    int major = 0, minor = 0;
    cudaFuncAttributes attributes{};
    const bool yes = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) == cudaSuccess &&
                     cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) == cudaSuccess &&
                     major == 9 && minor == 0 &&
                     cudaFuncGetAttributes(&attributes, fwd_kernel<T, D, CAUSAL>) == cudaSuccess &&
                     attributes.binaryVersion == 90 &&
                     cudaFuncSetAttribute(fwd_kernel<T, D, CAUSAL>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          Layout<D>::kSmem) == cudaSuccess;
    decided[device] = yes ? 1 : -1;
  }
  return decided[device] == 1;
}

// Runs the sm_90a forward when it applies (see usable_on_current_device; inputs 16-byte aligned,
// as the TMA unit needs); returns false, having launched nothing, when it does not.
template <typename T, int D, bool CAUSAL>
bool try_launch_fwd(const FwdParams &p, void *stream, int *status) {
  static_assert(D == 64 || D == 128, "sm_90a instances exist for head dims 64 and 128");
  const auto aligned = [](const void *x) { return reinterpret_cast<uintptr_t>(x) % 16 == 0; };
  if (!aligned(p.q) || !aligned(p.k) || !aligned(p.v) || !usable_on_current_device<T, D, CAUSAL>()) {
    return false;
  }
  const int heads_total = p.batch * p.heads;
  CUtensorMap tq, tk, tv;
  if (!tensor_map<T, D>(&tq, p.q, heads_total, p.seq) || !tensor_map<T, D>(&tk, p.k, heads_total, p.seq) ||
      !tensor_map<T, D>(&tv, p.v, heads_total, p.seq)) {
    return false;
  }
  const dim3 grid((p.seq + kBlockM - 1) / kBlockM, p.heads, p.batch);
  fwd_kernel<T, D, CAUSAL><<<grid, kThreads, Layout<D>::kSmem, static_cast<cudaStream_t>(stream)>>>(
      tq, tk, tv, KernelArgs{p.out, p.lse, p.seq, p.scale * kLog2e});
  *status = static_cast<int>(cudaGetLastError());
  return true;
}

}  // namespace mha::cuda::sm90

#endif
