// Internal entry points shared by the host glue (src/main/native) and the kernel archives
// (mha_fwd, mha_bwd). Nothing here is exported: the library's version script keeps only mha_*.
#ifndef MHA_INTERNAL_H
#define MHA_INTERNAL_H

#include <cstddef>

#ifndef MHA_KERNEL_VARIANT
#define MHA_KERNEL_VARIANT 1
#endif

namespace mha {

// Variant 1 is the release kernel. Any other variant is a deliberately different build, used to
// prove that two copies loaded in one process each run their own kernels: its forward kernels
// scale the output by 1/variant, which no caller can mistake for the release result.
constexpr float kVariantOutputScale = 1.0f / MHA_KERNEL_VARIANT;

int kernel_variant();  // defined in the mha_fwd archive, so it travels with the kernels

struct Shape {
  int batch, heads, seq, dim;
  float scale;
  bool causal;
  std::size_t heads_total() const { return static_cast<std::size_t>(batch) * heads; }
  std::size_t elements() const { return heads_total() * seq * dim; }
  std::size_t rows() const { return heads_total() * seq; }
};

// CPU kernels work on float32 [batch*heads, seq, dim]; the API converts fp16/bf16 around them.
void cpu_reference_fwd(const Shape &s, const float *q, const float *k, const float *v, float *out,
                       float *lse);
void cpu_blocked_fwd(const Shape &s, const float *q, const float *k, const float *v, float *out,
                     float *lse);
void cpu_reference_bwd(const Shape &s, const float *q, const float *k, const float *v,
                       const float *out, const float *dout, const float *lse, float *dq, float *dk,
                       float *dv);
void cpu_blocked_bwd(const Shape &s, const float *q, const float *k, const float *v,
                     const float *out, const float *dout, const float *lse, float *dq, float *dk,
                     float *dv);

// fp16 / bf16 bit patterns <-> float, rounding to nearest even (host side of the CPU backends).
float half_to_float(unsigned short bits);
unsigned short float_to_half(float value);
float bf16_to_float(unsigned short bits);
unsigned short float_to_bf16(float value);
// OCP FP8 E4M3 (bias 7, no infinities, 0x7f/0xff NaN) to float: exact.
float e4m3_to_float(unsigned char bits);

// Runs fn(i) for i in [0, n) on all cores (MHA_NUM_THREADS overrides the count).
void parallel_for(std::size_t n, void (*fn)(std::size_t, void *), void *context);

namespace cuda {

struct FwdParams {
  const void *q, *k, *v;
  void *out;
  float *lse;  // may be null
  int batch, heads, seq;
  float scale;
};

struct BwdParams {
  const void *q, *k, *v, *out, *dout;
  const float *lse;
  void *dq, *dk, *dv;
  float *delta;  // workspace: rowsum(dout * out)
  int batch, heads, seq;
  float scale;
  float *dq_accum = nullptr;  // workspace after delta: float32 dQ for the fused sm_90a pass
  size_t dq_accum_floats = 0;  // the workspace's floats from dq_accum on
};

// The e4m3 forward: q, k and v in e4m3 (fwd.scale includes q's and k's scales), out fp16 or bf16.
struct Fp8FwdParams {
  FwdParams fwd;
  float v_scale;
  bool out_bf16;
  void *v_transposed;  // workspace of fp8_fwd_workspace_bytes(), 16-byte aligned
};

// The e4m3 forward's V^T: keys padded to whole tiles of 128.
inline int fp8_padded_seq(int seq) { return (seq + 127) / 128 * 128; }
inline std::size_t fp8_fwd_workspace_bytes(std::size_t heads_total, int seq, int dim) {
  return heads_total * dim * static_cast<std::size_t>(fp8_padded_seq(seq));
}

// A launcher's answer when the device cannot run its kernel (the e4m3 forward off Hopper).
constexpr int kNotRunnable = -1;

// Every kernel instance: dtype x head dim x causal. Each direction's instances live in one .cu
// file apiece (src/main/kernels/*/cuda, written by src/main/kernels/generate-instances.sh).
#define MHA_CUDA_INSTANCES(X) \
  X(f32, 64, 0) X(f32, 64, 1) X(f32, 128, 0) X(f32, 128, 1) \
  X(f16, 64, 0) X(f16, 64, 1) X(f16, 128, 0) X(f16, 128, 1) \
  X(bf16, 64, 0) X(bf16, 64, 1) X(bf16, 128, 0) X(bf16, 128, 1)

// Host code sees the launchers as weak: when nvcc was absent the CUDA sources were skipped, the
// addresses resolve to null and the API answers MHA_ERR_NO_CUDA instead of failing to link.
#if defined(__CUDACC__)
#define MHA_CUDA_LAUNCHER
#else
// Hidden too, so an undefined launcher resolves to null at link time and is never looked up in
// other libraries of the process at load time.
#define MHA_CUDA_LAUNCHER __attribute__((weak, visibility("hidden")))
#endif

// Launchers return a cudaError_t (0: success).
#define MHA_DECLARE_LAUNCHERS(T, D, C)                                                   \
  MHA_CUDA_LAUNCHER int fwd_##T##_d##D##_c##C(const FwdParams &params, void *stream); \
  MHA_CUDA_LAUNCHER int bwd_##T##_d##D##_c##C(const BwdParams &params, void *stream);
MHA_CUDA_INSTANCES(MHA_DECLARE_LAUNCHERS)
#undef MHA_DECLARE_LAUNCHERS

// The e4m3 forward instances (head dim x causal): sm_90a only.
#define MHA_CUDA_E4M3_INSTANCES(X) X(128, 0) X(128, 1)
#define MHA_DECLARE_E4M3_LAUNCHER(D, C) \
  MHA_CUDA_LAUNCHER int fwd_e4m3_d##D##_c##C(const Fp8FwdParams &params, void *stream);
MHA_CUDA_E4M3_INSTANCES(MHA_DECLARE_E4M3_LAUNCHER)
#undef MHA_DECLARE_E4M3_LAUNCHER

MHA_CUDA_LAUNCHER const char *error_string(int error);

}  // namespace cuda
}  // namespace mha
#endif
