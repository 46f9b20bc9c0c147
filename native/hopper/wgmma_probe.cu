// Probe of Hopper warpgroup MMA (wgmma) operand layouts, the building block of libmha's sm_90a
// kernels: C[64 x D] = A[64 x D] * B, fp16 in, fp32 out, A and B in shared memory with the 128-byte
// swizzle, checked against the CPU, for D = 64 and 128 (head dims). Two B layouts, the two an
// attention kernel needs:
//   kmajor: B stored [N][K] (K contiguous), as K is for S = Q K^T;
//   nmajor: B stored [K][N] (N contiguous), as V is for O = P V (wgmma's transposed B).
// Descriptor fields (leading/stride byte offsets) are kernel arguments, so one run tries several,
// including wrong ones, which must show as WRONG. Descriptors, register lists and the wgmma fences
// are the library's (hopper_common.cuh); the wgmma here is the probe's own, since it takes a
// transposed B with A in shared memory, where the library pairs a transposed B with A in registers.
// Build: nvcc -gencode=arch=compute_90a,code=sm_90a -O2 -std=c++17 -I../src/main/include -I../src/main/headers \
//          -o wgmma_probe wgmma_probe.cu
#include <vector>

#include "harness.cuh"
#include "mha_cuda/hopper_common.cuh"

using namespace mha::cuda::sm90;

#if defined(MHA_SM90_CODE)
// c += A B, m64nNk16, both in shared memory, B transposed (N-major) when TRANS_B.
template <int TRANS_B>
__device__ __forceinline__ void wgmma(float (&c)[32], uint64_t da, uint64_t db) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 " MHA_REGS32 ", %32, %33, 1, 1, 1, 0, %34;\n"
               : MHA_OUT32(c) : "l"(da), "l"(db), "n"(TRANS_B));
}
template <int TRANS_B>
__device__ __forceinline__ void wgmma(float (&c)[64], uint64_t da, uint64_t db) {
  asm volatile("wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 " MHA_REGS64 ", %64, %65, 1, 1, 1, 0, %66;\n"
               : MHA_OUT64(c) : "l"(da), "l"(db), "n"(TRANS_B));
}

// Byte offset of 16-bit element (row, col) of a 64-column atom (128-byte rows), 128-byte swizzle:
// the 16-byte chunk index is XORed with the row index mod 8. The atom must be 1024-byte aligned.
__device__ __forceinline__ int sw128(int row, int col) {
  const int byte = col * 2;
  return row * 128 + (((byte >> 4) ^ (row & 7)) << 4) + (byte & 15);
}
#endif

// One warpgroup. a: [64][D] row-major (K contiguous); b: kmajor [D N][D K], nmajor [D K][D N];
// c: [64][D] fp32 row-major. Tiles are stored as D/64 atoms of 64 columns (rows x 128 bytes each).
// B steps per 16 of K: kmajor 32 bytes inside an atom, then the next atom; nmajor `step_b` bytes.
template <int D, int TRANS_B>
__global__ void __launch_bounds__(128) probe(const __half *a, const __half *b, float *c, int lbo_b, int sbo_b,
                                             int step_b) {
#if defined(MHA_SM90_CODE)
  extern __shared__ __align__(1024) unsigned char smem[];
  unsigned char *a_s = smem, *b_s = smem + 64 * D * 2;
  for (int i = threadIdx.x; i < 64 * D; i += 128) {
    const int r = i / D, col = i % D;
    *reinterpret_cast<__half *>(a_s + (col / 64) * 64 * 128 + sw128(r, col % 64)) = a[i];
  }
  for (int i = threadIdx.x; i < D * D; i += 128) {
    const int r = i / D, col = i % D;
    *reinterpret_cast<__half *>(b_s + (col / 64) * D * 128 + sw128(r, col % 64)) = b[i];
  }
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
  __syncthreads();
  float acc[D / 2];
  for (int i = 0; i < D / 2; ++i) acc[i] = 0.f;
  wgmma_fence();
#pragma unroll
  for (int ks = 0; ks < D / 16; ++ks) {
    const uint64_t da = descriptor(a_s + (ks / 4) * 64 * 128 + (ks % 4) * 32, 16, 1024);
    const unsigned char *b_at = TRANS_B ? b_s + ks * step_b : b_s + (ks / 4) * D * 128 + (ks % 4) * 32;
    wgmma<TRANS_B>(acc, da, descriptor(b_at, lbo_b, sbo_b));
  }
  wgmma_commit();
  wgmma_wait<0>();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int j = 0; j < D / 8; ++j) {
    const int row = warp * 16 + lane / 4, col = 8 * j + 2 * (lane % 4);
    c[row * D + col] = acc[4 * j];
    c[row * D + col + 1] = acc[4 * j + 1];
    c[(row + 8) * D + col] = acc[4 * j + 2];
    c[(row + 8) * D + col + 1] = acc[4 * j + 3];
  }
#endif
}

struct Variant {
  const char *name;
  int trans, lbo, sbo, step;
};

// Runs every variant at head dim D on random inputs and prints each one's largest error against the
// CPU; C is poisoned with NaN first, and NaN (an unwritten element) counts as infinite.
template <int D> static void run(std::initializer_list<Variant> variants) {
  std::vector<__half> a(64 * D), b(D * D);
  std::vector<float> af(64 * D), bf(D * D);
  for (int i = 0; i < 64 * D; ++i) a[i] = __float2half(af[i] = (rand() % 17 - 8) / 8.f);
  for (int i = 0; i < D * D; ++i) b[i] = __float2half(bf[i] = (rand() % 13 - 6) / 4.f);
  __half *da, *db;
  float *dc;
  CHECK(cudaMalloc(&da, a.size() * 2));
  CHECK(cudaMalloc(&db, b.size() * 2));
  CHECK(cudaMalloc(&dc, 64 * D * 4));
  CHECK(cudaMemcpy(da, a.data(), a.size() * 2, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(db, b.data(), b.size() * 2, cudaMemcpyHostToDevice));
  const int shared = (64 * D + D * D) * 2;
  CHECK(cudaFuncSetAttribute(probe<D, 0>, cudaFuncAttributeMaxDynamicSharedMemorySize, shared));
  CHECK(cudaFuncSetAttribute(probe<D, 1>, cudaFuncAttributeMaxDynamicSharedMemorySize, shared));
  for (const Variant &v : variants) {
    CHECK(cudaMemset(dc, 0xff, 64 * D * 4));
    (v.trans ? probe<D, 1> : probe<D, 0>)<<<1, 128, shared>>>(da, db, dc, v.lbo, v.sbo, v.step);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    std::vector<float> c(64 * D);
    CHECK(cudaMemcpy(c.data(), dc, c.size() * 4, cudaMemcpyDeviceToHost));
    double worst = 0;
    for (int i = 0; i < 64; ++i) {
      for (int j = 0; j < D; ++j) {
        double ref = 0;
        for (int x = 0; x < D; ++x) ref += af[i * D + x] * (v.trans ? bf[x * D + j] : bf[j * D + x]);
        const double err = std::fabs(c[i * D + j] - ref);
        if (!(err <= worst)) worst = std::isnan(err) ? INFINITY : err;
      }
    }
    printf("d%-4d %-34s max abs error %g %s\n", D, v.name, worst, worst < 1e-3 ? "OK" : "WRONG");
  }
  cudaFree(da);
  cudaFree(db);
  cudaFree(dc);
}

int main() {
  srand(7);
  run<64>({{"kmajor lbo16 sbo1024", 0, 16, 1024, 0},
           {"nmajor lbo16 sbo1024 step2048", 1, 16, 1024, 2048},
           {"nmajor lbo1024 sbo16 step2048", 1, 1024, 16, 2048},  // wrong on purpose
           {"nmajor lbo8192 sbo1024 step2048", 1, 8192, 1024, 2048}});
  run<128>({{"kmajor sbo1024", 0, 16, 1024, 0},
            {"nmajor lbo16384 sbo1024 step2048", 1, 16384, 1024, 2048},
            {"nmajor lbo1024 sbo16384 step2048", 1, 1024, 16384, 2048}});  // wrong on purpose
  return 0;
}
