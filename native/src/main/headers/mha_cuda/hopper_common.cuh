// What the sm_90a kernels (hopper_fwd.cuh, hopper_bwd.cuh) share: mbarriers, TMA tile loads,
// wgmma on shared-memory descriptors and register operands, and on the host the tensor maps and the
// decision whether an sm_90a kernel can run on the current device.
// Shared-memory layouts (verified by native/hopper/wgmma_probe.cu): a tile of rows x D is D/64
// atoms of rows x 64 elements (128 bytes a row, 16-byte chunks XOR-swizzled by row % 8, what the
// TMA unit's 128-byte swizzle writes), atoms rows x 128 bytes apart. Read along the head dims, a
// tile is a K-major wgmma operand (Q, K, dO, V in the score-like products); read along its rows, an
// N-major ("transposed") B operand (V in P V, K in dS K, dO in P^T dO, Q in dS^T Q).
#ifndef MHA_CUDA_HOPPER_COMMON_CUH
#define MHA_CUDA_HOPPER_COMMON_CUH

#include <cuda.h>  // CUtensorMap and its enums only: the driver function is looked up at run time
#include <dlfcn.h>

#include <cstdlib>

#include "mha_cuda/common.cuh"

namespace mha::cuda::sm90 {

// wgmma, setmaxnreg and the tensor copies exist only in sm_90a code; the sm_80 pass of the same
// translation unit compiles empty kernels that are never launched.
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define MHA_SM90_CODE 1

__device__ __forceinline__ void bar_init(uint64_t *bar, int count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(shared_address(bar)), "r"(count));
}
// Makes the initialised barriers visible to the TMA unit before anyone uses them.
__device__ __forceinline__ void bar_init_fence() {
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
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
// One box (64 columns x the map's rows, of head `head`) into the swizzled atom at `dst`.
__device__ __forceinline__ void tma_load(void *dst, const CUtensorMap *map, uint64_t *bar, int col, int row,
                                         int head) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3, %4}], [%5];\n" ::"r"(shared_address(dst)),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(col), "r"(row), "r"(head), "r"(shared_address(bar))
      : "memory");
}
// Every 128-byte atom (64 columns of fp16/bf16, 128 of fp8) of a tile of `rows` x D elements of
// ELEMENT_BYTES, rows row0.. of head `head`.
template <int D, int ELEMENT_BYTES = 2>
__device__ __forceinline__ void tma_load_tile(unsigned char *dst, int rows, const CUtensorMap *map, uint64_t *bar,
                                              int row0, int head) {
  constexpr int kColumns = 128 / ELEMENT_BYTES;
#pragma unroll
  for (int a = 0; a < D / kColumns; ++a) tma_load(dst + a * rows * 128, map, bar, a * kColumns, row0, head);
}

// A block of one producer warpgroup and CONSUMERS consumer warpgroups starts with the 64K register
// file shared evenly (168 registers a thread for two consumers, 128 for three); the producer, which
// only issues loads, gives most of its share to the consumers, whose accumulators need it:
// 24 + 2 x 240 or 32 + 3 x 160 per lane of a warpgroup, the same totals.
template <int CONSUMERS = 2>
__device__ __forceinline__ void producer_registers() {
  static_assert(CONSUMERS == 2 || CONSUMERS == 3, "register splits exist for two and three consumers");
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(CONSUMERS == 2 ? 24 : 32));
}
template <int CONSUMERS = 2>
__device__ __forceinline__ void consumer_registers() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(CONSUMERS == 2 ? 240 : 160));
}

// A shared-memory matrix descriptor with the 128-byte swizzle.
__device__ __forceinline__ uint64_t descriptor(const void *p, int lbo, int sbo) {
  return static_cast<uint64_t>((shared_address(p) >> 4) & 0x3fff) |
         static_cast<uint64_t>((lbo >> 4) & 0x3fff) << 16 | static_cast<uint64_t>((sbo >> 4) & 0x3fff) << 32 |
         static_cast<uint64_t>(1) << 62;
}

#define MHA_REGS16 "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15}"
#define MHA_REGS32                                                                                         \
  "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27," \
  "%28,%29,%30,%31}"
#define MHA_REGS96                                                                                         \
  "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26," \
  "%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51," \
  "%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76," \
  "%77,%78,%79,%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95}"
#define MHA_REGS64                                                                                          \
  "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27," \
  "%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,%48,%49,%50,%51,%52,"   \
  "%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}"
#define MHA_OUT8(c, i) "+f"(c[i]), "+f"(c[i + 1]), "+f"(c[i + 2]), "+f"(c[i + 3]), "+f"(c[i + 4]), \
  "+f"(c[i + 5]), "+f"(c[i + 6]), "+f"(c[i + 7])
#define MHA_OUT16(c) MHA_OUT8(c, 0), MHA_OUT8(c, 8)
#define MHA_OUT32(c) MHA_OUT8(c, 0), MHA_OUT8(c, 8), MHA_OUT8(c, 16), MHA_OUT8(c, 24)
#define MHA_OUT64(c) MHA_OUT32(c), MHA_OUT8(c, 32), MHA_OUT8(c, 40), MHA_OUT8(c, 48), MHA_OUT8(c, 56)
#define MHA_OUT96(c) MHA_OUT64(c), MHA_OUT8(c, 64), MHA_OUT8(c, 72), MHA_OUT8(c, 80), MHA_OUT8(c, 88)
// The wgmma instructions, one per accumulator width (96 regs: n192, 64: n128, 32: n64) and input
// type. Inline assembly takes its text as a literal, hence the macros: they only spell out the
// operand lists.
// SS: c (+)= A B, both operands in shared memory (`accumulate` 0: c = A B), read along K
// (TRANSPOSED "0": K-major) or along their rows (TRANSPOSED "1": A M-major, B N-major). The output
// operands come last, as they contain commas.
#define MHA_WGMMA_SS(N, TYPE, REGS, A, B, P, TRANSPOSED, ...)                                             \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #P ", 0;\n"                                          \
               "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." TYPE "." TYPE " " REGS ", %" #A ", %" #B  \
               ", p, 1, 1, " TRANSPOSED ", " TRANSPOSED ";\n}\n"                                          \
               : __VA_ARGS__                                                                              \
               : "l"(da), "l"(db), "r"(accumulate))
template <typename T>
__device__ __forceinline__ void mma_ss_transposed(float (&c)[64], uint64_t da, uint64_t db, int accumulate) {
  if constexpr (std::is_same<T, __half>::value) MHA_WGMMA_SS(128, "f16", MHA_REGS64, 64, 65, 66, "1", MHA_OUT64(c));
  else MHA_WGMMA_SS(128, "bf16", MHA_REGS64, 64, 65, 66, "1", MHA_OUT64(c));
}
template <typename T>
__device__ __forceinline__ void mma_ss_transposed(float (&c)[32], uint64_t da, uint64_t db, int accumulate) {
  if constexpr (std::is_same<T, __half>::value) MHA_WGMMA_SS(64, "f16", MHA_REGS32, 32, 33, 34, "1", MHA_OUT32(c));
  else MHA_WGMMA_SS(64, "bf16", MHA_REGS32, 32, 33, 34, "1", MHA_OUT32(c));
}
template <typename T>
__device__ __forceinline__ void mma_ss_transposed(float (&c)[16], uint64_t da, uint64_t db, int accumulate) {
  if constexpr (std::is_same<T, __half>::value) MHA_WGMMA_SS(32, "f16", MHA_REGS16, 16, 17, 18, "1", MHA_OUT16(c));
  else MHA_WGMMA_SS(32, "bf16", MHA_REGS16, 16, 17, 18, "1", MHA_OUT16(c));
}
// RS: c += A B, A (four registers) from the thread, B N-major in shared memory.
#define MHA_WGMMA_RS(N, TYPE, REGS, OUTS, A0, A1, A2, A3, B)                                                    \
  asm volatile("wgmma.mma_async.sync.aligned.m64n" #N "k16.f32." TYPE "." TYPE " " REGS ", {%" #A0 ",%" #A1 \
               ",%" #A2 ",%" #A3 "}, %" #B ", 1, 1, 1, 1;\n"                                                 \
               : OUTS                                                                                          \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db))

// RK: c (+)= A B with A (four registers) from the thread and B K-major in shared memory. fp16 and
// bf16 take k-steps of 16 and a transpose flag for B (0 here); e4m3 k-steps of 32 and no flag (its
// shared-memory operands can only be K-major).
#define MHA_WGMMA_RK_SHAPE(SHAPE, TAIL, REGS, A0, A1, A2, A3, B, P, ...)                                    \
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #P ", 0;\n"                                                \
               "wgmma.mma_async.sync.aligned." SHAPE " " REGS ", {%" #A0 ",%" #A1                             \
               ",%" #A2 ",%" #A3 "}, %" #B ", p, 1, 1" TAIL ";\n}\n"                                         \
               : __VA_ARGS__                                                                                  \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(accumulate))
#define MHA_WGMMA_RK(N, TYPE, ...) MHA_WGMMA_RK_SHAPE("m64n" #N "k16.f32." TYPE "." TYPE, ", 0", __VA_ARGS__)

template <typename T>
__device__ __forceinline__ void mma_ss(float (&c)[64], uint64_t da, uint64_t db, int accumulate) {
  if constexpr (std::is_same<T, __half>::value) MHA_WGMMA_SS(128, "f16", MHA_REGS64, 64, 65, 66, "0", MHA_OUT64(c));
  else MHA_WGMMA_SS(128, "bf16", MHA_REGS64, 64, 65, 66, "0", MHA_OUT64(c));
}
template <typename T>
__device__ __forceinline__ void mma_ss(float (&c)[32], uint64_t da, uint64_t db, int accumulate) {
  if constexpr (std::is_same<T, __half>::value) MHA_WGMMA_SS(64, "f16", MHA_REGS32, 32, 33, 34, "0", MHA_OUT32(c));
  else MHA_WGMMA_SS(64, "bf16", MHA_REGS32, 32, 33, 34, "0", MHA_OUT32(c));
}
template <typename T>
__device__ __forceinline__ void mma_ss(float (&c)[96], uint64_t da, uint64_t db, int accumulate) {
  if constexpr (std::is_same<T, __half>::value) MHA_WGMMA_SS(192, "f16", MHA_REGS96, 96, 97, 98, "0", MHA_OUT96(c));
  else MHA_WGMMA_SS(192, "bf16", MHA_REGS96, 96, 97, 98, "0", MHA_OUT96(c));
}
template <typename T>
__device__ __forceinline__ void mma_rs(float (&c)[64], const uint32_t (&a)[4], uint64_t db) {
  if constexpr (std::is_same<T, __half>::value) MHA_WGMMA_RS(128, "f16", MHA_REGS64, MHA_OUT64(c), 64, 65, 66, 67, 68);
  else MHA_WGMMA_RS(128, "bf16", MHA_REGS64, MHA_OUT64(c), 64, 65, 66, 67, 68);
}
template <typename T>
__device__ __forceinline__ void mma_rs(float (&c)[32], const uint32_t (&a)[4], uint64_t db) {
  if constexpr (std::is_same<T, __half>::value) MHA_WGMMA_RS(64, "f16", MHA_REGS32, MHA_OUT32(c), 32, 33, 34, 35, 36);
  else MHA_WGMMA_RS(64, "bf16", MHA_REGS32, MHA_OUT32(c), 32, 33, 34, 35, 36);
}

template <typename T>
__device__ __forceinline__ void mma_rk(float (&c)[64], const uint32_t (&a)[4], uint64_t db, int accumulate) {
  if constexpr (std::is_same<T, __half>::value) {
    MHA_WGMMA_RK(128, "f16", MHA_REGS64, 64, 65, 66, 67, 68, 69, MHA_OUT64(c));
  } else if constexpr (std::is_same<T, e4m3>::value) {
    MHA_WGMMA_RK_SHAPE("m64n128k32.f32.e4m3.e4m3", "", MHA_REGS64, 64, 65, 66, 67, 68, 69, MHA_OUT64(c));
  } else {
    MHA_WGMMA_RK(128, "bf16", MHA_REGS64, 64, 65, 66, 67, 68, 69, MHA_OUT64(c));
  }
}
template <typename T>
__device__ __forceinline__ void mma_rk(float (&c)[32], const uint32_t (&a)[4], uint64_t db, int accumulate) {
  static_assert(sizeof(T) == 2, "e4m3 products exist for n128 only");
  if constexpr (std::is_same<T, __half>::value) {
    MHA_WGMMA_RK(64, "f16", MHA_REGS32, 32, 33, 34, 35, 36, 37, MHA_OUT32(c));
  } else {
    MHA_WGMMA_RK(64, "bf16", MHA_REGS32, 32, 33, 34, 35, 36, 37, MHA_OUT32(c));
  }
}

// The wgmma k-steps over K elements of T: 32 bytes each (16 of fp16/bf16, 32 of fp8), four to a
// 128-byte atom.
template <typename T, int K>
__host__ __device__ constexpr int k_steps() {
  return K * static_cast<int>(sizeof(T)) / 32;
}

// c = A B^T over KD columns (c += with ACCUMULATE), A in registers (the operand layout of
// to_operand) and B a tile of N rows read along its columns (K-major, atoms N x 128 bytes apart).
template <typename T, int KD, int N, bool ACCUMULATE = false>
__device__ __forceinline__ void issue_rk(float (&c)[N / 2], const uint32_t (&a)[k_steps<T, KD>()][4],
                                         const unsigned char *b) {
#pragma unroll
  for (int ks = 0; ks < k_steps<T, KD>(); ++ks) {
    mma_rk<T>(c, a[ks], descriptor(b + (ks / 4) * N * 128 + (ks % 4) * 32, 16, 1024), ACCUMULATE || ks > 0);
  }
}

// c (+)= A B^T over KD columns: A is 64 rows of a tile whose atoms are `a_atom` bytes apart, B a tile
// of N rows (atoms N x 128 bytes apart); both read along their columns (K-major).
template <typename T, int KD, int N>
__device__ __forceinline__ void issue_ss(float (&c)[N / 2], const unsigned char *a, int a_atom,
                                         const unsigned char *b) {
#pragma unroll
  for (int ks = 0; ks < KD / 16; ++ks) {  // 4 k-steps of 16 per 64-column atom
    mma_ss<T>(c, descriptor(a + (ks / 4) * a_atom + (ks % 4) * 32, 16, 1024),
              descriptor(b + (ks / 4) * N * 128 + (ks % 4) * 32, 16, 1024), ks > 0);
  }
}

// c += A B with A in registers (K/16 k-steps) and B a tile of K rows x N columns read along its
// rows (N-major): 16 rows are 2048 bytes, and its 64-column atoms K x 128 bytes apart.
template <typename T, int K, int N>
__device__ __forceinline__ void issue_rs(float (&c)[N / 2], const uint32_t (&a)[K / 16][4], const unsigned char *b) {
#pragma unroll
  for (int kk = 0; kk < K / 16; ++kk) mma_rs<T>(c, a[kk], descriptor(b + kk * 16 * 128, K * 128, 1024));
}

// c = A B with A (64 x K) read along its rows from a tile of K rows x 64 columns (M-major: 16 rows
// a k-step, 2048 bytes) and B (K x N) read along its rows from N columns of a tile of K rows (N-major,
// its 64-column atoms K x 128 bytes apart; b may start inside an atom, as the swizzle follows the
// address bits).
template <typename T, int K, int N>
__device__ __forceinline__ void issue_transposed(float (&c)[N / 2], const unsigned char *a, const unsigned char *b) {
#pragma unroll
  for (int kk = 0; kk < K / 16; ++kk) {
    mma_ss_transposed<T>(c, descriptor(a + kk * 16 * 128, K * 128, 1024), descriptor(b + kk * 16 * 128, K * 128, 1024),
                         kk > 0);
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

// Ends the basic block here, so that ptxas keeps a wgmma wait after it where the source puts it: ptxas
// 13.0 moves such a wait to the top of its block, ahead of the work the source placed before it
// (the softmax under the product it waits for). The branch depends on that work's result, which
// must never be negative, so it is never taken; its fence would do no harm if it were.
__device__ __forceinline__ void end_block_unless_negative(float never_negative) {
  if (never_negative < 0.f) asm volatile("membar.cta;\n" ::: "memory");
}

// Four floats as e4m3 (rounded to nearest, saturating at 448), the first in the lowest byte.
__device__ __forceinline__ uint32_t pack4_e4m3(float a, float b, float c, float d) {
  const uint32_t lo = __nv_cvt_float2_to_fp8x2(make_float2(a, b), __NV_SATFINITE, __NV_E4M3);
  const uint32_t hi = __nv_cvt_float2_to_fp8x2(make_float2(c, d), __NV_SATFINITE, __NV_E4M3);
  return lo | hi << 16;
}

// An accumulator of 64 rows x N columns as the register A operand of the next product (k = its
// columns): the accumulator layout is mma.sync's, so c[4j..4j+3] hold columns
// 8j + 2(lane%4) + {0,1} of rows lane/4 and lane/4 + 8 of the warp's 16. For fp16/bf16 that is the
// A layout of a k-step of 16 as it stands. An e4m3 k-step of 32 wants columns 4(lane%4) + {0..3}
// and 16 + the same in its registers, which this thread does not hold; it gets its own columns
// instead, in the order kept_key() (hopper_fwd_fp8.cuh) names, and the B operand's rows must follow that order.
template <typename T, int N>
__device__ __forceinline__ void to_operand(uint32_t (&p)[k_steps<T, N>()][4], const float (&c)[N / 2]) {
  if constexpr (std::is_same<T, e4m3>::value) {
#pragma unroll
    for (int kk = 0; kk < N / 32; ++kk) {
      const float *x = c + 16 * kk;
      p[kk][0] = pack4_e4m3(x[0], x[1], x[4], x[5]);     // first row
      p[kk][1] = pack4_e4m3(x[2], x[3], x[6], x[7]);     // second row
      p[kk][2] = pack4_e4m3(x[8], x[9], x[12], x[13]);   // first row, k 16..31
      p[kk][3] = pack4_e4m3(x[10], x[11], x[14], x[15]);  // second row
    }
  } else {
#pragma unroll
    for (int kk = 0; kk < N / 16; ++kk) {
      p[kk][0] = pack2<T>(c[8 * kk], c[8 * kk + 1]);      // first row, columns 16kk + 2(lane%4), +1
      p[kk][1] = pack2<T>(c[8 * kk + 2], c[8 * kk + 3]);  // second row
      p[kk][2] = pack2<T>(c[8 * kk + 4], c[8 * kk + 5]);  // first row, columns 16kk + 8 + 2(lane%4), +1
      p[kk][3] = pack2<T>(c[8 * kk + 6], c[8 * kk + 7]);  // second row
    }
  }
}

// Rows row0 and row0 + 8 (of a [rows][D] slice at `rows`) as the register A operand over the D
// columns, read straight from global memory once: rows at or past `limit` are zeros. A k-step is
// 32 bytes of a row, eight 32-bit words: word lane%4 in registers 0 and 1, word 4 + lane%4 in 2
// and 3 (2 columns a word for fp16/bf16, 4 for e4m3: the A layout of either).
template <typename T, int D>
__device__ __forceinline__ void load_operand(uint32_t (&a)[k_steps<T, D>()][4], const void *rows, int row0,
                                             int limit) {
  constexpr int kWords = D * sizeof(T) / 4;  // a row
  const int lane = threadIdx.x % kWarpSize;
  const uint32_t *words = static_cast<const uint32_t *>(rows);
#pragma unroll
  for (int kk = 0; kk < k_steps<T, D>(); ++kk) {
    const int word = 8 * kk + lane % 4;
    a[kk][0] = row0 < limit ? words[static_cast<size_t>(row0) * kWords + word] : 0u;
    a[kk][1] = row0 + 8 < limit ? words[static_cast<size_t>(row0 + 8) * kWords + word] : 0u;
    a[kk][2] = row0 < limit ? words[static_cast<size_t>(row0) * kWords + word + 4] : 0u;
    a[kk][3] = row0 + 8 < limit ? words[static_cast<size_t>(row0 + 8) * kWords + word + 4] : 0u;
  }
}

// Makes this thread's ordinary shared-memory stores visible to the tensor cores and the TMA unit
// (the async proxy): each writing thread, before the barrier that hands the data over.
__device__ __forceinline__ void fence_async_shared() { asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory"); }

// Barrier 1 over the THREADS threads that reach it (the consumer warpgroups), leaving the producer out.
template <int THREADS>
__device__ __forceinline__ void consumers_sync() { asm volatile("bar.sync 1, %0;\n" ::"n"(THREADS) : "memory"); }

// Adds a box of float32 in shared memory (as the map's box and swizzle lay it out) to the tensor
// at column col, row row of head `head`, by the TMA unit; rows past the tensor are left out. The
// adds of one thread form bulk groups: commit, then wait before the box's memory is reused.
__device__ __forceinline__ void tma_add(const CUtensorMap *map, const void *src, int col, int row, int head) {
  asm volatile(
      "cp.reduce.async.bulk.tensor.3d.global.shared::cta.add.tile.bulk_group [%0, {%2, %3, %4}], [%1];\n" ::"l"(
          reinterpret_cast<uint64_t>(map)),
      "r"(shared_address(src)), "r"(col), "r"(row), "r"(head)
      : "memory");
}
__device__ __forceinline__ void bulk_commit() { asm volatile("cp.async.bulk.commit_group;\n" ::: "memory"); }
// Until the committed bulk groups have read their shared memory.
__device__ __forceinline__ void bulk_wait_read() { asm volatile("cp.async.bulk.wait_group.read 0;\n" ::: "memory"); }
// Until the committed bulk groups are complete.
__device__ __forceinline__ void bulk_wait() { asm volatile("cp.async.bulk.wait_group 0;\n" ::: "memory"); }

// 2^x on the special-function unit, subnormal results flushed to zero: exp2f without fast math
// adds instructions around the same unit to keep subnormals, which here would be weights far below
// what fp16/bf16 P or the fp32 row sums can register.
__device__ __forceinline__ float fast_exp2(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// Rows row0 and row0 + 8 of an accumulator of N columns into [rows][N] of T at `out`, times
// factor0 / factor1; rows at or past `limit` are left alone.
template <typename T, int N>
__device__ __forceinline__ void store_accumulator(void *out, const float (&c)[N / 2], size_t rows_before, int row0,
                                                  int limit, float factor0, float factor1) {
  const int lane = threadIdx.x % kWarpSize;
  uint32_t *pairs = static_cast<uint32_t *>(out);
#pragma unroll
  for (int j = 0; j < N / 8; ++j) {
    const int pair = 4 * j + lane % 4;
    if (row0 < limit)
      pairs[(rows_before + row0) * (N / 2) + pair] = pack2<T>(c[4 * j] * factor0, c[4 * j + 1] * factor0);
    if (row0 + 8 < limit)
      pairs[(rows_before + row0 + 8) * (N / 2) + pair] = pack2<T>(c[4 * j + 2] * factor1, c[4 * j + 3] * factor1);
  }
}
#endif  // __CUDA_ARCH_FEAT_SM90_ALL

// The sm_90a kernels' launch bounds. Compiled for any other device (sm_80, or "90" without the
// "a"), the same kernels are empty and bounded to one thread: the run-time check
// (usable_on_current_device) sees that in their attributes and declines them, and a launch of one
// could not silently do nothing. (A plain sm_90 build has the same binary version as sm_90a.)
#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define MHA_SM90_LAUNCH_BOUNDS(threads) __launch_bounds__(1)
#else
#define MHA_SM90_LAUNCH_BOUNDS(threads) __launch_bounds__(threads, 1)
#endif

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

// [heads_total][rows_total][columns] of T as a 3-D tensor for the TMA unit: boxes of 128 bytes of
// columns (64 of fp16/bf16, 32 of float, 128 of fp8) x `rows` rows of one head, 128-byte swizzle;
// rows past rows_total read as zeros (and are left out when written). False when the driver
// refuses it (the data must be 16-byte aligned, as must a row).
template <typename T>
bool tensor_map_3d(CUtensorMap *map, const void *data, int heads_total, int rows_total, int columns, int rows) {
  const cuuint64_t dims[3] = {static_cast<cuuint64_t>(columns), static_cast<cuuint64_t>(rows_total),
                              static_cast<cuuint64_t>(heads_total)};
  const cuuint64_t strides[2] = {columns * sizeof(T), static_cast<cuuint64_t>(rows_total) * columns * sizeof(T)};
  const cuuint32_t box[3] = {128 / sizeof(T), static_cast<cuuint32_t>(rows), 1}, element_strides[3] = {1, 1, 1};
  const CUtensorMapDataType type = std::is_same<T, float>::value    ? CU_TENSOR_MAP_DATA_TYPE_FLOAT32
                                   : std::is_same<T, __half>::value ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                   : sizeof(T) == 1                 ? CU_TENSOR_MAP_DATA_TYPE_UINT8
                                                                    : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  return reinterpret_cast<uintptr_t>(data) % 16 == 0 &&
         encode_tiled()(map, type,
                        3, const_cast<void *>(data), dims, strides, box, element_strides,
                        CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                        CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

// [batch * heads][seq][D], the layout of the API's tensors, in boxes of `rows` rows.
template <typename T, int D>
bool tensor_map(CUtensorMap *map, const void *data, int heads_total, int seq, int rows) {
  return tensor_map_3d<T>(map, data, heads_total, seq, D, rows);
}

// Whether the environment variable `name` is set to anything but empty or "0".
inline bool env_flag(const char *name) {
  const char *value = std::getenv(name);
  return value != nullptr && value[0] != '\0' && value[0] != '0';
}

// The current device's multiprocessors, 0 when it cannot say.
inline int multiprocessors() {
  int device = 0, sms = 0;
  return cudaGetDevice(&device) == cudaSuccess &&
                 cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) == cudaSuccess
             ? sms
             : 0;
}

// Whether KERNEL runs on the current device: compute capability 9.0, sm_90a code for it in the
// library (the binary the runtime picked is version 90 and admits THREADS threads a block, which
// the empty stubs of other builds do not), SMEM bytes of shared memory granted, and not turned off
// with MHA_DISABLE_SM90. Decided once per device and kernel.
template <auto *KERNEL, int SMEM, int THREADS>
bool usable_on_current_device() {
  static const bool disabled = env_flag("MHA_DISABLE_SM90");
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
                     major == 9 && minor == 0 && cudaFuncGetAttributes(&attributes, KERNEL) == cudaSuccess &&
                     attributes.binaryVersion == 90 && attributes.maxThreadsPerBlock >= THREADS &&
                     cudaFuncSetAttribute(KERNEL, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM) == cudaSuccess;
    decided[device] = yes ? 1 : -1;
  }
  return decided[device] == 1;
}

}  // namespace mha::cuda::sm90

#endif
