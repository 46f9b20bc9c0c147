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
// kept_key order and keys at or past seq zero: one block a tile of kBlockN keys of one head. The
// tile goes through shared memory in 4-byte words (4 head dims of a key); a thread then reads the
// words of 4 keys and turns them into 4 words of 4 keys each (one a head dim) with byte permutes,
// and a warp writes 128 consecutive bytes of each of 4 rows of V^T.
template <int D>
__global__ void __launch_bounds__(kTransposeThreads)
    transpose_v_kernel(const unsigned char *v, unsigned char *vt, int seq, int seq_padded) {
  static_assert(D % 32 == 0 && kBlockN == 128, "a warp writes 128 keys: a whole tile of a row of V^T");
  constexpr int kWords = D / 4;          // 4-byte words a key
  constexpr int kStride = kWords + 1;    // words a key in shared memory: 33, a bank further a key
  __shared__ uint32_t tile[kBlockN * kStride];
  // Word w of key k is stored at word w ^ (k / 32 % 4) of its row: the keys a warp reads at once lie
  // 32 apart in fours, which the row stride alone would put in one bank.
  auto at = [](int key, int word) { return key * kStride + (word ^ (key / 32 % 4)); };
  const int key0 = blockIdx.x * kBlockN, head = blockIdx.y;
  const uint32_t *src = reinterpret_cast<const uint32_t *>(v + (static_cast<size_t>(head) * seq + key0) * D);
  for (int i = threadIdx.x; i < kBlockN * kWords; i += kTransposeThreads) {
    const int key = i / kWords, word = i % kWords;
    tile[at(key, word)] = key0 + key < seq ? src[key * kWords + word] : 0u;
  }
  __syncthreads();
  for (int i = threadIdx.x; i < kWords * kBlockN / 4; i += kTransposeThreads) {
    const int position = 4 * (i % (kBlockN / 4)), word = i / (kBlockN / 4);  // keys position.., dims 4 word..
    uint32_t in[4];
#pragma unroll
    for (int r = 0; r < 4; ++r) in[r] = tile[at((position + r) / 32 * 32 + kept_key((position + r) % 32), word)];
    // in[r] byte b is dim 4 word + b of the r-th key; out[b] byte r the same.
    const uint32_t lo01 = __byte_perm(in[0], in[1], 0x5140), hi01 = __byte_perm(in[0], in[1], 0x7362);
    const uint32_t lo23 = __byte_perm(in[2], in[3], 0x5140), hi23 = __byte_perm(in[2], in[3], 0x7362);
    const uint32_t out[4] = {__byte_perm(lo01, lo23, 0x5410), __byte_perm(lo01, lo23, 0x7632),
                             __byte_perm(hi01, hi23, 0x5410), __byte_perm(hi01, hi23, 0x7632)};
#pragma unroll
    for (int b = 0; b < 4; ++b) {
      *reinterpret_cast<uint32_t *>(vt + (static_cast<size_t>(head) * D + 4 * word + b) * seq_padded + key0 +
                                    position) = out[b];
    }
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
