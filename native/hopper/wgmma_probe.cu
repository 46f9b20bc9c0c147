// Probe of Hopper warpgroup MMA (wgmma) operand layouts, the building block of sm_90a attention
// kernels: C[64 x N] = A[64 x 64] * B, fp16 in, fp32 out, A and B in shared memory with the 128-byte
// swizzle, checked against the CPU. Two B layouts, the two an attention kernel needs:
//   kmajor: B stored [N][K] (K contiguous), as K is for S = Q K^T;
//   nmajor: B stored [K][N] (N contiguous), as V is for O = P V (wgmma's transposed B).
// Descriptor fields (leading/stride byte offsets) are kernel arguments, so one run tries several.
// Build: nvcc -gencode=arch=compute_90a,code=sm_90a -O2 -o wgmma_probe wgmma_probe.cu
#include <cuda_fp16.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <cmath>
#include <vector>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA error %s at %s:%d\n", \
    cudaGetErrorString(e), __FILE__, __LINE__); exit(1); } } while (0)

constexpr int M = 64, K = 64;

// Byte offset of 16-bit element (row, col) in a tile of 64-element (128-byte) rows, 128B swizzle:
// the 16-byte chunk index is XORed with the row index mod 8. The tile must be 1024-byte aligned.
__host__ __device__ inline int sw128(int row, int col) {
  int byte = col * 2;
  return row * 128 + ((((byte >> 4) ^ (row & 7))) << 4) + (byte & 15);
}

__device__ inline uint64_t desc(const void *smem, int lbo, int sbo) {
  uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(smem));
  uint64_t d = 0;
  d |= static_cast<uint64_t>((addr >> 4) & 0x3fff);
  d |= static_cast<uint64_t>((lbo >> 4) & 0x3fff) << 16;
  d |= static_cast<uint64_t>((sbo >> 4) & 0x3fff) << 32;
  d |= static_cast<uint64_t>(1) << 62;  // 128-byte swizzle
  return d;
}

template <int N, int TRANS_B>
__device__ inline void wgmma(float (&c)[N / 2], uint64_t da, uint64_t db, int accumulate);

#define WGMMA_N64(TB)                                                                                   \
  template <> __device__ inline void wgmma<64, TB>(float (&c)[32], uint64_t da, uint64_t db, int acc) { \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"                                            \
                 "wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 "                                  \
                 "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,"                               \
                 "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31}, "                    \
                 "%32, %33, p, 1, 1, 0, " #TB ";\n}\n"                                                  \
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3]), "+f"(c[4]), "+f"(c[5]), "+f"(c[6]),   \
                   "+f"(c[7]), "+f"(c[8]), "+f"(c[9]), "+f"(c[10]), "+f"(c[11]), "+f"(c[12]),            \
                   "+f"(c[13]), "+f"(c[14]), "+f"(c[15]), "+f"(c[16]), "+f"(c[17]), "+f"(c[18]),         \
                   "+f"(c[19]), "+f"(c[20]), "+f"(c[21]), "+f"(c[22]), "+f"(c[23]), "+f"(c[24]),         \
                   "+f"(c[25]), "+f"(c[26]), "+f"(c[27]), "+f"(c[28]), "+f"(c[29]), "+f"(c[30]),         \
                   "+f"(c[31])                                                                          \
                 : "l"(da), "l"(db), "r"(acc));                                                         \
  }
WGMMA_N64(0)
WGMMA_N64(1)

#define WGMMA_N128(TB)                                                                                    \
  template <> __device__ inline void wgmma<128, TB>(float (&c)[64], uint64_t da, uint64_t db, int acc) {  \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"                                             \
                 "wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 "                                  \
                 "{%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,"                                \
                 "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,"                       \
                 "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,"                       \
                 "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63}, "                     \
                 "%64, %65, p, 1, 1, 0, " #TB ";\n}\n"                                                   \
                 : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3]), "+f"(c[4]), "+f"(c[5]), "+f"(c[6]),    \
                   "+f"(c[7]), "+f"(c[8]), "+f"(c[9]), "+f"(c[10]), "+f"(c[11]), "+f"(c[12]),             \
                   "+f"(c[13]), "+f"(c[14]), "+f"(c[15]), "+f"(c[16]), "+f"(c[17]), "+f"(c[18]),          \
                   "+f"(c[19]), "+f"(c[20]), "+f"(c[21]), "+f"(c[22]), "+f"(c[23]), "+f"(c[24]),          \
                   "+f"(c[25]), "+f"(c[26]), "+f"(c[27]), "+f"(c[28]), "+f"(c[29]), "+f"(c[30]),          \
                   "+f"(c[31]), "+f"(c[32]), "+f"(c[33]), "+f"(c[34]), "+f"(c[35]), "+f"(c[36]),          \
                   "+f"(c[37]), "+f"(c[38]), "+f"(c[39]), "+f"(c[40]), "+f"(c[41]), "+f"(c[42]),          \
                   "+f"(c[43]), "+f"(c[44]), "+f"(c[45]), "+f"(c[46]), "+f"(c[47]), "+f"(c[48]),          \
                   "+f"(c[49]), "+f"(c[50]), "+f"(c[51]), "+f"(c[52]), "+f"(c[53]), "+f"(c[54]),          \
                   "+f"(c[55]), "+f"(c[56]), "+f"(c[57]), "+f"(c[58]), "+f"(c[59]), "+f"(c[60]),          \
                   "+f"(c[61]), "+f"(c[62]), "+f"(c[63])                                                 \
                 : "l"(da), "l"(db), "r"(acc));                                                          \
  }
WGMMA_N128(0)
WGMMA_N128(1)

// Head dimension 128, as attention needs it: A [64][128] (K = 128: two 64-column swizzle atoms,
// stored one after the other, 64 x 128 bytes each); C = A * B with N = 128:
//   kmajor: B [128 N][128 K] (two K atoms of 128 rows each), as K^T is for S = Q K^T with 128 keys;
//   nmajor: B [128 K][128 N] (two N atoms of 128 K-rows each), as V is for O = P V with d = 128.
template <int TRANS_B>
__global__ void __launch_bounds__(128) probe128(const __half *a, const __half *b, float *c, int lbo_b, int sbo_b,
                                                int step_b) {
  extern __shared__ __align__(1024) unsigned char smem[];
  unsigned char *a_s = smem;                 // 2 atoms x 64 rows x 128 B = 16 KB
  unsigned char *b_s = smem + 2 * 64 * 128;  // 2 atoms x 128 rows x 128 B = 32 KB
  for (int i = threadIdx.x; i < 64 * 128; i += 128) {
    int r = i / 128, col = i % 128;
    *reinterpret_cast<__half *>(a_s + (col / 64) * 64 * 128 + sw128(r, col % 64)) = a[i];
  }
  for (int i = threadIdx.x; i < 128 * 128; i += 128) {
    int r = i / 128, col = i % 128;
    *reinterpret_cast<__half *>(b_s + (col / 64) * 128 * 128 + sw128(r, col % 64)) = b[i];
  }
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();
  float acc[64];
  for (int i = 0; i < 64; ++i) acc[i] = 0.f;
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
  for (int ks = 0; ks < 128 / 16; ++ks) {
    uint64_t da = desc(a_s + (ks / 4) * 64 * 128 + (ks % 4) * 32, 16, 1024);
    // kmajor: the K atom, then 32 bytes a step inside it; nmajor: 16 K-rows a step (step_b bytes).
    unsigned char *b_at = TRANS_B ? b_s + ks * step_b : b_s + (ks / 4) * 128 * 128 + (ks % 4) * 32;
    uint64_t db = desc(b_at, lbo_b, sbo_b);
    wgmma<128, TRANS_B>(acc, da, db, 1);
  }
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int j = 0; j < 16; ++j) {
    int row = warp * 16 + lane / 4, col = 8 * j + 2 * (lane % 4);
    c[row * 128 + col] = acc[4 * j];
    c[row * 128 + col + 1] = acc[4 * j + 1];
    c[(row + 8) * 128 + col] = acc[4 * j + 2];
    c[(row + 8) * 128 + col + 1] = acc[4 * j + 3];
  }
}

// One warpgroup. a: [64][64] row-major (K contiguous). b: kmajor [64 N][64 K], nmajor [64 K][64 N].
// c: [64][64] fp32 row-major.
template <int TRANS_B>
__global__ void __launch_bounds__(128) probe(const __half *a, const __half *b, float *c, int lbo_b, int sbo_b,
                                             int step_b) {
  __shared__ __align__(1024) unsigned char a_s[M * 128];
  __shared__ __align__(1024) unsigned char b_s[64 * 128];
  for (int i = threadIdx.x; i < 64 * 64; i += 128) {
    int r = i / 64, col = i % 64;
    *reinterpret_cast<__half *>(a_s + sw128(r, col)) = a[i];
    *reinterpret_cast<__half *>(b_s + sw128(r, col)) = b[i];
  }
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();
  float acc[32];
  for (int i = 0; i < 32; ++i) acc[i] = 0.f;
  asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
#pragma unroll
  for (int ks = 0; ks < K / 16; ++ks) {
    uint64_t da = desc(a_s + ks * 32, 16, 1024);  // K-major: the next 16 columns are 32 bytes on
    uint64_t db = desc(b_s + ks * step_b, lbo_b, sbo_b);
    wgmma<64, TRANS_B>(acc, da, db, 1);
  }
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
  int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int j = 0; j < 8; ++j) {
    int row = warp * 16 + lane / 4, col = 8 * j + 2 * (lane % 4);
    c[row * 64 + col] = acc[4 * j];
    c[row * 64 + col + 1] = acc[4 * j + 1];
    c[(row + 8) * 64 + col] = acc[4 * j + 2];
    c[(row + 8) * 64 + col + 1] = acc[4 * j + 3];
  }
}

// Copies C (64 x n, fp32) back and prints its largest error against A (64 x k) times B, where B is
// [n][k] (trans 0) or [k][n] (trans 1); NaN (an unwritten, poisoned element) counts as infinite.
static void report(const char *name, const float *device_c, const std::vector<float> &a, const std::vector<float> &b,
                   int n, int k, int trans) {
  std::vector<float> c(64 * n);
  CHECK(cudaMemcpy(c.data(), device_c, c.size() * 4, cudaMemcpyDeviceToHost));
  double worst = 0;
  for (int i = 0; i < 64; ++i) {
    for (int j = 0; j < n; ++j) {
      double ref = 0;
      for (int x = 0; x < k; ++x) ref += a[i * k + x] * (trans ? b[x * n + j] : b[j * k + x]);
      double err = std::fabs(c[i * n + j] - ref);
      if (!(err <= worst)) worst = std::isnan(err) ? INFINITY : err;
    }
  }
  printf("%-36s max abs error %g %s\n", name, worst, worst < 1e-3 ? "OK" : "WRONG");
}

int main() {
  std::vector<__half> a(64 * 64), b(64 * 64);
  std::vector<float> af(64 * 64), bf(64 * 64);
  srand(7);
  for (int i = 0; i < 64 * 64; ++i) {
    af[i] = (rand() % 17 - 8) / 8.f;
    bf[i] = (rand() % 13 - 6) / 4.f;
    a[i] = __float2half(af[i]);
    b[i] = __float2half(bf[i]);
  }
  __half *da, *db;
  float *dc;
  CHECK(cudaMalloc(&da, 64 * 64 * 2));
  CHECK(cudaMalloc(&db, 64 * 64 * 2));
  CHECK(cudaMalloc(&dc, 64 * 64 * 4));
  CHECK(cudaMemcpy(da, a.data(), 64 * 64 * 2, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), 64 * 64 * 2, cudaMemcpyHostToDevice));
  struct Variant { const char *name; int trans, lbo, sbo, step; };
  const Variant variants[] = {
      {"kmajor lbo16 sbo1024 step32", 0, 16, 1024, 32},
      {"nmajor lbo16 sbo1024 step2048", 1, 16, 1024, 2048},
      {"nmajor lbo1024 sbo16 step2048", 1, 1024, 16, 2048},
      {"nmajor lbo8192 sbo1024 step2048", 1, 8192, 1024, 2048},
  };
  for (const Variant &v : variants) {
    CHECK(cudaMemset(dc, 0xff, 64 * 64 * 4));  // poison: NaN everywhere
    if (v.trans) {
      probe<1><<<1, 128>>>(da, db, dc, v.lbo, v.sbo, v.step);
    } else {
      probe<0><<<1, 128>>>(da, db, dc, v.lbo, v.sbo, v.step);
    }
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    report(v.name, dc, af, bf, 64, 64, v.trans);
  }

  // Head dimension 128.
  std::vector<__half> a2(64 * 128), b2(128 * 128);
  std::vector<float> af2(64 * 128), bf2(128 * 128);
  for (int i = 0; i < 64 * 128; ++i) { af2[i] = (rand() % 17 - 8) / 8.f; a2[i] = __float2half(af2[i]); }
  for (int i = 0; i < 128 * 128; ++i) { bf2[i] = (rand() % 13 - 6) / 4.f; b2[i] = __float2half(bf2[i]); }
  __half *da2, *db2;
  float *dc2;
  CHECK(cudaMalloc(&da2, 64 * 128 * 2));
  CHECK(cudaMalloc(&db2, 128 * 128 * 2));
  CHECK(cudaMalloc(&dc2, 64 * 128 * 4));
  CHECK(cudaMemcpy(da2, a2.data(), 64 * 128 * 2, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db2, b2.data(), 128 * 128 * 2, cudaMemcpyHostToDevice));
  const int shared = 64 * 1024;  // A 16 KB + B 32 KB, and room to spare
  CHECK(cudaFuncSetAttribute(probe128<0>, cudaFuncAttributeMaxDynamicSharedMemorySize, shared));
  CHECK(cudaFuncSetAttribute(probe128<1>, cudaFuncAttributeMaxDynamicSharedMemorySize, shared));
  const Variant variants128[] = {
      {"d128 kmajor n128 sbo1024", 0, 16, 1024, 0},
      {"d128 nmajor n128 lbo16384 sbo1024", 1, 16384, 1024, 2048},
      {"d128 nmajor n128 lbo1024 sbo16384", 1, 1024, 16384, 2048},
  };
  for (const Variant &v : variants128) {
    CHECK(cudaMemset(dc2, 0xff, 64 * 128 * 4));
    if (v.trans) {
      probe128<1><<<1, 128, shared>>>(da2, db2, dc2, v.lbo, v.sbo, v.step);
    } else {
      probe128<0><<<1, 128, shared>>>(da2, db2, dc2, v.lbo, v.sbo, v.step);
    }
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    report(v.name, dc2, af2, bf2, 128, 128, v.trans);
  }
  return 0;
}
