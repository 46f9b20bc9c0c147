// Prototype of an sm_90a attention forward (fp16, head dim 128) on warpgroup MMA, built on the
// operand layouts wgmma_probe.cu verified: two warpgroups per block, each owning 64 query rows; Q, K and V
// tiles sit in shared memory in the 128-byte swizzle (K and V stored alike, [keys][d] in two
// 64-column atoms), K/V tiles of 128 keys double-buffered with cp.async; S = Q K^T with B K-major,
// the online softmax on the accumulators, then O += P V with P from registers and V as wgmma's
// transposed (N-major) B. Checked against the CPU and timed with events; not wired into libmha.
// Build: nvcc -gencode=arch=compute_90a,code=sm_90a -O3 -o fwd_wgmma_proto fwd_wgmma_proto.cu
#include <cstdint>
#include <string>

#include "harness.cuh"

constexpr int D = 128, WG = 2, BM = 64 * WG, BN = 128, THREADS = 128 * WG;
constexpr int Q_BYTES = BM * D * 2, KV_BYTES = BN * D * 2;  // 32 KB, 32 KB
constexpr int SMEM = Q_BYTES + 4 * KV_BYTES + 1024;        // Q, K x2, V x2, alignment slack

__device__ __forceinline__ int sw128(int row, int chunk) { return row * 128 + ((chunk ^ (row & 7)) << 4); }

__device__ __forceinline__ uint64_t desc(const void *smem, int lbo, int sbo) {
  uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  return static_cast<uint64_t>((addr >> 4) & 0x3fff) | static_cast<uint64_t>((lbo >> 4) & 0x3fff) << 16 |
         static_cast<uint64_t>((sbo >> 4) & 0x3fff) << 32 | static_cast<uint64_t>(1) << 62;
}

// A tile of `rows` x 128 fp16 from global (row stride 128) into two swizzled 64-column atoms.
__device__ __forceinline__ void load_tile(unsigned char *dst, const __half *src, int rows) {
  const int chunks = rows * 16;
  for (int i = threadIdx.x; i < chunks; i += THREADS) {
    int r = i / 16, c = i % 16;  // c: 16-byte chunk of the row, 8 halves
    unsigned char *d = dst + (c / 8) * rows * 128 + sw128(r, c % 8);
    uint32_t s = static_cast<uint32_t>(__cvta_generic_to_shared(d));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(src + r * D + c * 8));
  }
}

#define ACC64 "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,%16,%17,%18,%19,%20,%21,%22,%23," \
  "%24,%25,%26,%27,%28,%29,%30,%31,%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,"   \
  "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}"
#define OUT64(c) "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3]), "+f"(c[4]), "+f"(c[5]), "+f"(c[6]), "+f"(c[7]), \
  "+f"(c[8]), "+f"(c[9]), "+f"(c[10]), "+f"(c[11]), "+f"(c[12]), "+f"(c[13]), "+f"(c[14]), "+f"(c[15]),         \
  "+f"(c[16]), "+f"(c[17]), "+f"(c[18]), "+f"(c[19]), "+f"(c[20]), "+f"(c[21]), "+f"(c[22]), "+f"(c[23]),       \
  "+f"(c[24]), "+f"(c[25]), "+f"(c[26]), "+f"(c[27]), "+f"(c[28]), "+f"(c[29]), "+f"(c[30]), "+f"(c[31]),       \
  "+f"(c[32]), "+f"(c[33]), "+f"(c[34]), "+f"(c[35]), "+f"(c[36]), "+f"(c[37]), "+f"(c[38]), "+f"(c[39]),       \
  "+f"(c[40]), "+f"(c[41]), "+f"(c[42]), "+f"(c[43]), "+f"(c[44]), "+f"(c[45]), "+f"(c[46]), "+f"(c[47]),       \
  "+f"(c[48]), "+f"(c[49]), "+f"(c[50]), "+f"(c[51]), "+f"(c[52]), "+f"(c[53]), "+f"(c[54]), "+f"(c[55]),       \
  "+f"(c[56]), "+f"(c[57]), "+f"(c[58]), "+f"(c[59]), "+f"(c[60]), "+f"(c[61]), "+f"(c[62]), "+f"(c[63])

// c += A(smem, K-major) * B(smem, K-major), m64n128k16; zero: c = A * B.
__device__ __forceinline__ void mma_ss(float (&c)[64], uint64_t da, uint64_t db, int accumulate) {
  asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"
               "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 " ACC64 ", %64, %65, p, 1, 1, 0, 0;\n}\n"
               : OUT64(c) : "l"(da), "l"(db), "r"(accumulate));
}

// c += A(registers) * B(smem, N-major), m64n128k16.
__device__ __forceinline__ void mma_rs(float (&c)[64], const uint32_t (&a)[4], uint64_t db) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 " ACC64
               ", {%64,%65,%66,%67}, %68, 1, 1, 1, 1;\n"
               : OUT64(c) : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db));
}

__device__ __forceinline__ uint32_t pack(float lo, float hi) {
  __half2 h = __floats2half2_rn(lo, hi);
  return *reinterpret_cast<uint32_t *>(&h);
}

template <bool CAUSAL>
__global__ void __launch_bounds__(THREADS, 1) fwd(const __half *q, const __half *k, const __half *v, __half *o, int seq,
                                              float scale_log2) {
  extern __shared__ unsigned char raw[];
  unsigned char *base = reinterpret_cast<unsigned char *>((reinterpret_cast<uintptr_t>(raw) + 1023) & ~uintptr_t(1023));
  unsigned char *q_s = base, *k_s[2] = {base + Q_BYTES, base + Q_BYTES + KV_BYTES},
                *v_s[2] = {base + Q_BYTES + 2 * KV_BYTES, base + Q_BYTES + 3 * KV_BYTES};
  const int m_block = CAUSAL ? gridDim.x - 1 - blockIdx.x : blockIdx.x;  // heaviest causal blocks first
  const int m0 = m_block * BM;
  const size_t head = static_cast<size_t>(blockIdx.z) * gridDim.y + blockIdx.y;
  const __half *qh = q + head * seq * D, *kh = k + head * seq * D, *vh = v + head * seq * D;
  // Each warpgroup owns 64 of the block's query rows and shares its K and V tiles with the other:
  // while one runs its softmax, the other's matrix products keep the tensor cores busy.
  const int wg = threadIdx.x / 128, warp = threadIdx.x % 128 / 32, lane = threadIdx.x % 32;
  const int row0 = m0 + wg * 64 + warp * 16 + lane / 4, row1 = row0 + 8;
  const unsigned char *q_wg = q_s + wg * 64 * 128;  // its rows inside each 128-row Q atom

  const int kv_end = CAUSAL ? min(seq, m0 + BM) : seq;
  const int tiles = (kv_end + BN - 1) / BN;
  load_tile(q_s, qh + static_cast<size_t>(m0) * D, BM);
  load_tile(k_s[0], kh, BN);
  load_tile(v_s[0], vh, BN);
  asm volatile("cp.async.commit_group;\n");

  float acc_o[64];
#pragma unroll
  for (int i = 0; i < 64; ++i) acc_o[i] = 0.f;
  float max0 = -INFINITY, max1 = -INFINITY, sum0 = 0.f, sum1 = 0.f;

  for (int t = 0; t < tiles; ++t) {
    const int buf = t & 1;
    if (t + 1 < tiles) {  // the next tile streams in while this one is computed
      load_tile(k_s[buf ^ 1], kh + static_cast<size_t>(t + 1) * BN * D, BN);
      load_tile(v_s[buf ^ 1], vh + static_cast<size_t>(t + 1) * BN * D, BN);
    }
    asm volatile("cp.async.commit_group;\n");
    asm volatile("cp.async.wait_group 1;\n" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    __syncthreads();

    float s[64];
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
    for (int ks = 0; ks < D / 16; ++ks) {
      mma_ss(s, desc(q_wg + (ks / 4) * BM * 128 + (ks % 4) * 32, 16, 1024),
             desc(k_s[buf] + (ks / 4) * BN * 128 + (ks % 4) * 32, 16, 1024), ks > 0);
    }
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");

    // Online softmax on the accumulators: s[4j], s[4j+1] are row0, keys 8j + 2(lane%4) + {0,1};
    // s[4j+2], s[4j+3] the same keys of row1.
    const int n0 = t * BN;
    float tile0 = -INFINITY, tile1 = -INFINITY;
#pragma unroll
    for (int j = 0; j < 16; ++j) {
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int key = n0 + 8 * j + 2 * (lane % 4) + e;
        const bool ok0 = key < seq && (!CAUSAL || key <= row0), ok1 = key < seq && (!CAUSAL || key <= row1);
        s[4 * j + e] = ok0 ? s[4 * j + e] * scale_log2 : -INFINITY;
        s[4 * j + 2 + e] = ok1 ? s[4 * j + 2 + e] * scale_log2 : -INFINITY;
        tile0 = fmaxf(tile0, s[4 * j + e]);
        tile1 = fmaxf(tile1, s[4 * j + 2 + e]);
      }
    }
#pragma unroll
    for (int off = 1; off <= 2; off *= 2) {
      tile0 = fmaxf(tile0, __shfl_xor_sync(0xffffffffu, tile0, off));
      tile1 = fmaxf(tile1, __shfl_xor_sync(0xffffffffu, tile1, off));
    }
    const float new0 = fmaxf(max0, tile0), new1 = fmaxf(max1, tile1);
    const float shift0 = new0 == -INFINITY ? 0.f : new0, shift1 = new1 == -INFINITY ? 0.f : new1;
    const float r0 = exp2f(max0 - shift0), r1 = exp2f(max1 - shift1);
    max0 = new0;
    max1 = new1;
    sum0 *= r0;
    sum1 *= r1;
#pragma unroll
    for (int j = 0; j < 16; ++j) {
      acc_o[4 * j] *= r0;
      acc_o[4 * j + 1] *= r0;
      acc_o[4 * j + 2] *= r1;
      acc_o[4 * j + 3] *= r1;
    }
    uint32_t p[8][4];
#pragma unroll
    for (int kk = 0; kk < 8; ++kk) {  // 16 keys: accumulator columns 16kk .. 16kk+15
      float e[8];
#pragma unroll
      for (int x = 0; x < 4; ++x) {
        e[x] = exp2f(s[8 * kk + x] - (x < 2 ? shift0 : shift1));
        e[4 + x] = exp2f(s[8 * kk + 4 + x] - (x < 2 ? shift0 : shift1));
      }
      sum0 += e[0] + e[1] + e[4] + e[5];
      sum1 += e[2] + e[3] + e[6] + e[7];
      p[kk][0] = pack(e[0], e[1]);  // row0, keys 2t, 2t+1
      p[kk][1] = pack(e[2], e[3]);  // row1
      p[kk][2] = pack(e[4], e[5]);  // row0, keys 8 + 2t
      p[kk][3] = pack(e[6], e[7]);  // row1
    }
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
    for (int kk = 0; kk < 8; ++kk) {
      mma_rs(acc_o, p[kk], desc(v_s[buf] + kk * 16 * 128, BN * 128, 1024));
    }
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
    __syncthreads();  // this buffer is refilled two tiles from now
  }

#pragma unroll
  for (int off = 1; off <= 2; off *= 2) {
    sum0 += __shfl_xor_sync(0xffffffffu, sum0, off);
    sum1 += __shfl_xor_sync(0xffffffffu, sum1, off);
  }
  const float inv0 = sum0 > 0.f ? 1.f / sum0 : 0.f, inv1 = sum1 > 0.f ? 1.f / sum1 : 0.f;
  __half *oh = o + head * seq * D;
#pragma unroll
  for (int j = 0; j < 16; ++j) {
    const int col = 8 * j + 2 * (lane % 4);
    if (row0 < seq)
      *reinterpret_cast<__half2 *>(oh + static_cast<size_t>(row0) * D + col) =
          __floats2half2_rn(acc_o[4 * j] * inv0, acc_o[4 * j + 1] * inv0);
    if (row1 < seq)
      *reinterpret_cast<__half2 *>(oh + static_cast<size_t>(row1) * D + col) =
          __floats2half2_rn(acc_o[4 * j + 2] * inv1, acc_o[4 * j + 3] * inv1);
  }
}

static void run(bool causal, const __half *q, const __half *k, const __half *v, __half *o, int b, int h, int seq) {
  dim3 grid(seq / BM, h, b);
  float scale_log2 = 1.f / std::sqrt(static_cast<float>(D)) * 1.4426950408889634f;
  if (causal) {
    fwd<true><<<grid, THREADS, SMEM>>>(q, k, v, o, seq, scale_log2);
  } else {
    fwd<false><<<grid, THREADS, SMEM>>>(q, k, v, o, seq, scale_log2);
  }
}

int main(int argc, char **argv) {
  const bool check_only = argc > 1 && std::string(argv[1]) == "check";  // for compute-sanitizer
  CHECK(cudaFuncSetAttribute(fwd<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM));
  CHECK(cudaFuncSetAttribute(fwd<false>, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM));
  const Launch<__half> launch = [](bool causal, const __half *q, const __half *k, const __half *v, __half *o, int b,
                                   int h, int seq) { run(causal, q, k, v, o, b, h, seq); };
  const bool ok = check_against_cpu<__half>(launch, D, 384, 1e-2);
  if (!check_only) time_launches<__half>(launch, D, {1024, 4096, 8192});
  return ok ? 0 : 1;
}
