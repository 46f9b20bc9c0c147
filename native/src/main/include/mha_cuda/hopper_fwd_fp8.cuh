// The FP8 (e4m3) forward on Hopper (sm_90a): Q, K and V in e4m3 with a scale each (what one unit of
// the stored value stands for), the output in fp16 or bf16. It is hopper_fwd.cuh's kernel with
// e4m3 operands; two things differ, both forced by wgmma's e4m3 form:
//  - Its shared-memory operands can only be K-major, so V, which P V reads along its keys, goes in
//    transposed: a first kernel writes V^T ([head][d][keys], keys padded to the tile with zeros)
//    into the caller's workspace, and the forward loads D x 128-key tiles of it.
//  - P comes from the S accumulator in registers, whose layout puts other keys in a thread's hands
//    than an e4m3 k-step of 32 asks for (to_operand in hopper_common.cuh); the transposition writes
//    each group of 32 keys in the order P arrives in (kept_key), which costs nothing there, where
//    reordering P in registers would cost shuffles every tile.
#ifndef MHA_CUDA_HOPPER_FWD_FP8_CUH
#define MHA_CUDA_HOPPER_FWD_FP8_CUH

#include "mha_cuda/hopper_fwd.cuh"

namespace mha::cuda::sm90 {

// The key (within its group of 32) whose weight to_operand places at k position `position` of an
// e4m3 k-step: positions 4(lane%4) + {0, 1, 2, 3} of a thread hold its keys 2(lane%4) + {0, 1, 8,
// 9}, positions 16 + those its keys 16 + the same.
__host__ __device__ constexpr int kept_key(int position) {
  const int half = position / 16, quad = position % 16 / 4, r = position % 4;
  return 16 * half + 8 * (r / 2) + 2 * quad + r % 2;
}

constexpr int kTransposeThreads = 256;

// V [heads_total][seq][D] to V^T [heads_total][D][seq_padded] with each group of 32 keys in
// kept_key order and keys at or past seq zero: one block a tile of kBlockN keys of one head.
template <int D>
__global__ void __launch_bounds__(kTransposeThreads)
    transpose_v_kernel(const unsigned char *v, unsigned char *vt, int seq, int seq_padded) {
  static_assert(D % 32 == 0 && kBlockN % 32 == 0, "keys move in groups of 32, head dims in warps of 32");
  constexpr int kStride = D + 4;  // a row a bank further on: reading one key across 32 head dims is conflict-free
  __shared__ __align__(16) unsigned char tile[kBlockN * kStride];
  const int key0 = blockIdx.x * kBlockN, head = blockIdx.y;
  const unsigned char *src = v + (static_cast<size_t>(head) * seq + key0) * D;
  for (int i = threadIdx.x; i < kBlockN * D / 4; i += kTransposeThreads) {
    const int key = i / (D / 4), word = i % (D / 4);
    const uint32_t value = key0 + key < seq ? reinterpret_cast<const uint32_t *>(src + key * D)[word] : 0u;
    *reinterpret_cast<uint32_t *>(tile + key * kStride + 4 * word) = value;
  }
  __syncthreads();
  // A warp writes 16 keys of 32 head dims: one key of the tile at a time across the warp.
  for (int i = threadIdx.x; i < D * kBlockN / 16; i += kTransposeThreads) {
    const int d = i % 32 + 32 * (i / 32 / (kBlockN / 16)), chunk = i / 32 % (kBlockN / 16);
    uint32_t out[4];
#pragma unroll
    for (int w = 0; w < 4; ++w) {
      uint32_t word = 0;
#pragma unroll
      for (int b = 0; b < 4; ++b) {
        const int position = 16 * chunk + 4 * w + b;
        word |= static_cast<uint32_t>(tile[(position / 32 * 32 + kept_key(position % 32)) * kStride + d]) << (8 * b);
      }
      out[w] = word;
    }
    *reinterpret_cast<uint4 *>(vt + (static_cast<size_t>(head) * D + d) * seq_padded + key0 + 16 * chunk) =
        make_uint4(out[0], out[1], out[2], out[3]);
  }
}

// Launches the transposition and the forward writing O; kNotRunnable, having launched nothing, when
// the device has no sm_90a kernel here or a tensor is not 16-byte aligned.
template <int D, bool CAUSAL, typename O>
int launch_fwd_e4m3_as(const Fp8FwdParams &p, cudaStream_t stream) {
  using L = Layout<e4m3, D>;
  static_assert(L::kQInRegisters, "the e4m3 forward reads Q from global memory into registers");
  const FwdParams &f = p.fwd;
  const int heads_total = f.batch * f.heads, seq_padded = fp8_padded_seq(f.seq);
  CUtensorMap unused{}, tk, tv;
  if (!usable_on_current_device<fwd_kernel<e4m3, D, CAUSAL, O, false>, L::kSmem, L::kThreads>() ||
      reinterpret_cast<uintptr_t>(f.q) % 16 != 0 || reinterpret_cast<uintptr_t>(f.v) % 16 != 0 ||
      !tensor_map<e4m3, D>(&tk, f.k, heads_total, f.seq, kBlockN) ||
      !tensor_map_3d<e4m3>(&tv, p.v_transposed, heads_total, D, seq_padded, D)) {
    return kNotRunnable;
  }
  transpose_v_kernel<D><<<dim3(seq_padded / kBlockN, heads_total), kTransposeThreads, 0, stream>>>(
      static_cast<const unsigned char *>(f.v), static_cast<unsigned char *>(p.v_transposed), f.seq, seq_padded);
  const int row_blocks = (f.seq + L::kBlockM - 1) / L::kBlockM;
  if (!launch_items<e4m3, D, CAUSAL, O>(
          unused, tk, tv,
          KernelArgs{f.q, f.out, f.lse, f.seq, f.scale * kLog2e, p.v_scale, row_blocks, row_blocks * heads_total},
          f.heads, stream)) {
    return kNotRunnable;
  }
  return static_cast<int>(cudaGetLastError());
}

template <int D, bool CAUSAL>
int launch_fwd_e4m3(const Fp8FwdParams &p, void *stream) {
  const auto s = static_cast<cudaStream_t>(stream);
  return p.out_bf16 ? launch_fwd_e4m3_as<D, CAUSAL, bf16>(p, s) : launch_fwd_e4m3_as<D, CAUSAL, f16>(p, s);
}

}  // namespace mha::cuda::sm90

// One instance per translation unit (see generate-instances.sh).
#define MHA_DEFINE_FWD_E4M3(D, C)                                               \
  namespace mha::cuda {                                                         \
  int fwd_e4m3_d##D##_c##C(const Fp8FwdParams &params, void *stream) {         \
    return sm90::launch_fwd_e4m3<D, (C) != 0>(params, stream);                 \
  }                                                                             \
  }

#endif
