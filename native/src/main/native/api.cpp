// The exported C API: argument checks, dtype conversion around the float32 CPU kernels, and the
// choice of CUDA kernel instance. Every entry point catches exceptions: none may cross into C.
#include <cmath>
#include <cstdint>
#include <new>
#include <string>
#include <vector>

#include "mha.h"
#include "mha_internal.h"

namespace {

thread_local std::string last_cuda_error;

bool valid_dtype(int dtype) { return dtype == MHA_F32 || dtype == MHA_F16 || dtype == MHA_BF16; }

bool valid_backend(int backend) {
  return backend == MHA_CPU_REFERENCE || backend == MHA_CPU_BLOCKED || backend == MHA_CUDA;
}

bool valid_shape(int batch, int heads, int seq, int dim) {
  return batch > 0 && heads > 0 && seq > 0 && dim > 0;
}

// A read-only float32 view of a host tensor: the tensor itself for f32, else a converted copy.
class FloatInput {
 public:
  FloatInput(mha_dtype dtype, const void *data, std::size_t count) {
    if (dtype == MHA_F32) {
      view_ = static_cast<const float *>(data);
      return;
    }
    const auto *bits = static_cast<const unsigned short *>(data);
    copy_.resize(count);
    for (std::size_t i = 0; i < count; ++i) {
      copy_[i] = dtype == MHA_F16 ? mha::half_to_float(bits[i]) : mha::bf16_to_float(bits[i]);
    }
    view_ = copy_.data();
  }
  const float *get() const { return view_; }

 private:
  std::vector<float> copy_;
  const float *view_ = nullptr;
};

// A float32 output: written in place for f32, else into scratch and rounded out by commit().
class FloatOutput {
 public:
  FloatOutput(mha_dtype dtype, void *data, std::size_t count) : dtype_(dtype), data_(data) {
    if (dtype != MHA_F32) scratch_.resize(count);
  }
  float *get() { return dtype_ == MHA_F32 ? static_cast<float *>(data_) : scratch_.data(); }
  void commit() {
    if (dtype_ == MHA_F32) return;
    auto *bits = static_cast<unsigned short *>(data_);
    for (std::size_t i = 0; i < scratch_.size(); ++i) {
      bits[i] = dtype_ == MHA_F16 ? mha::float_to_half(scratch_[i]) : mha::float_to_bf16(scratch_[i]);
    }
  }

 private:
  mha_dtype dtype_;
  void *data_;
  std::vector<float> scratch_;
};

// An e4m3 host tensor as float32 values times `scale`: the exact values the CPU kernels then use.
std::vector<float> dequantised(const void *data, std::size_t count, float scale) {
  const auto *bytes = static_cast<const unsigned char *>(data);
  std::vector<float> values(count);
  for (std::size_t i = 0; i < count; ++i) values[i] = mha::e4m3_to_float(bytes[i]) * scale;
  return values;
}

namespace cuda = mha::cuda;
using FwdLauncher = int (*)(const cuda::FwdParams &, void *);
using Fp8FwdLauncher = int (*)(const cuda::Fp8FwdParams &, void *);
using BwdLauncher = int (*)(const cuda::BwdParams &, void *);

// The dtype tags of MHA_CUDA_INSTANCES as API values.
constexpr mha_dtype dtype_of_f32 = MHA_F32, dtype_of_f16 = MHA_F16, dtype_of_bf16 = MHA_BF16;

// Null when the instance is unknown or was not compiled (no nvcc at build time).
FwdLauncher fwd_launcher(mha_dtype dtype, int dim, bool causal) {
#define MHA_MATCH(T, D, C) \
  if (dtype == dtype_of_##T && dim == D && causal == ((C) != 0)) return &cuda::fwd_##T##_d##D##_c##C;
  MHA_CUDA_INSTANCES(MHA_MATCH)
#undef MHA_MATCH
  return nullptr;
}

BwdLauncher bwd_launcher(mha_dtype dtype, int dim, bool causal) {
#define MHA_MATCH(T, D, C) \
  if (dtype == dtype_of_##T && dim == D && causal == ((C) != 0)) return &cuda::bwd_##T##_d##D##_c##C;
  MHA_CUDA_INSTANCES(MHA_MATCH)
#undef MHA_MATCH
  return nullptr;
}

Fp8FwdLauncher fp8_fwd_launcher(int dim, bool causal) {
#define MHA_MATCH(D, C) \
  if (dim == D && causal == ((C) != 0)) return &cuda::fwd_e4m3_d##D##_c##C;
  MHA_CUDA_E4M3_INSTANCES(MHA_MATCH)
#undef MHA_MATCH
  return nullptr;
}

bool cuda_compiled() { return &cuda::error_string != nullptr; }

constexpr int kMaxCudaHeadDim = 128;

bool cuda_dim_supported(int dim) { return dim == 64 || dim == kMaxCudaHeadDim; }

// The backward workspace: delta (a float per row), then from a 16-byte boundary float32 dQ for the
// fused sm_90a backward (rows x head_dim, at most rows x kMaxCudaHeadDim).
size_t dq_accum_offset(size_t rows) { return (rows + 3) / 4 * 4; }

int cuda_status(int error) {
  if (error == 0) return MHA_OK;
  if (error == cuda::kNotRunnable) return MHA_ERR_UNSUPPORTED;
  last_cuda_error = cuda::error_string(error);
  return MHA_ERR_CUDA;
}

mha::Shape shape_of(int batch, int heads, int seq, int dim, float scale, int causal) {
  return mha::Shape{batch, heads, seq, dim, scale, causal != 0};
}

int run_fwd(mha_backend backend, const mha_fwd_args &a, void *stream) {
  if (!valid_backend(backend) || !valid_dtype(a.dtype) ||
      !valid_shape(a.batch, a.heads, a.seq_len, a.head_dim) || !a.q || !a.k || !a.v || !a.out) {
    return MHA_ERR_ARGUMENT;
  }
  if (backend == MHA_CUDA) {
    if (!cuda_compiled()) return MHA_ERR_NO_CUDA;
    if (!cuda_dim_supported(a.head_dim)) return MHA_ERR_UNSUPPORTED;
    const cuda::FwdParams params{a.q, a.k, a.v, a.out, a.lse, a.batch, a.heads, a.seq_len, a.scale};
    return cuda_status(fwd_launcher(a.dtype, a.head_dim, a.causal != 0)(params, stream));
  }
  const mha::Shape s = shape_of(a.batch, a.heads, a.seq_len, a.head_dim, a.scale, a.causal);
  const std::size_t n = s.elements();
  FloatInput q(a.dtype, a.q, n), k(a.dtype, a.k, n), v(a.dtype, a.v, n);
  FloatOutput out(a.dtype, a.out, n);
  auto kernel = backend == MHA_CPU_REFERENCE ? mha::cpu_reference_fwd : mha::cpu_blocked_fwd;
  kernel(s, q.get(), k.get(), v.get(), out.get(), a.lse);
  out.commit();
  return MHA_OK;
}

int run_bwd(mha_backend backend, const mha_bwd_args &a, void *stream) {
  if (!valid_backend(backend) || !valid_dtype(a.dtype) ||
      !valid_shape(a.batch, a.heads, a.seq_len, a.head_dim) || !a.q || !a.k || !a.v || !a.out ||
      !a.dout || !a.lse || !a.dq || !a.dk || !a.dv) {
    return MHA_ERR_ARGUMENT;
  }
  if (backend == MHA_CUDA) {
    if (!cuda_compiled()) return MHA_ERR_NO_CUDA;
    if (!cuda_dim_supported(a.head_dim)) return MHA_ERR_UNSUPPORTED;
    if (!a.workspace) return MHA_ERR_ARGUMENT;
    const size_t rows = static_cast<size_t>(a.batch) * a.heads * a.seq_len;
    const cuda::BwdParams params{a.q,         a.k,     a.v,     a.out,     a.dout,  a.lse,
                                 a.dq,        a.dk,    a.dv,    a.workspace, a.batch, a.heads,
                                 a.seq_len,   a.scale, a.workspace + dq_accum_offset(rows),
                                 rows * kMaxCudaHeadDim};
    return cuda_status(bwd_launcher(a.dtype, a.head_dim, a.causal != 0)(params, stream));
  }
  const mha::Shape s = shape_of(a.batch, a.heads, a.seq_len, a.head_dim, a.scale, a.causal);
  const std::size_t n = s.elements();
  FloatInput q(a.dtype, a.q, n), k(a.dtype, a.k, n), v(a.dtype, a.v, n), out(a.dtype, a.out, n),
      dout(a.dtype, a.dout, n);
  FloatOutput dq(a.dtype, a.dq, n), dk(a.dtype, a.dk, n), dv(a.dtype, a.dv, n);
  auto kernel = backend == MHA_CPU_REFERENCE ? mha::cpu_reference_bwd : mha::cpu_blocked_bwd;
  kernel(s, q.get(), k.get(), v.get(), out.get(), dout.get(), a.lse, dq.get(), dk.get(), dv.get());
  dq.commit();
  dk.commit();
  dv.commit();
  return MHA_OK;
}

bool valid_scale(float scale) { return std::isfinite(scale) && scale > 0.f; }

int run_fwd_fp8(mha_backend backend, const mha_fwd_fp8_args &a, void *stream) {
  if (!valid_backend(backend) || (a.out_dtype != MHA_F16 && a.out_dtype != MHA_BF16) ||
      !valid_shape(a.batch, a.heads, a.seq_len, a.head_dim) || !valid_scale(a.q_scale) ||
      !valid_scale(a.k_scale) || !valid_scale(a.v_scale) || !a.q || !a.k || !a.v || !a.out) {
    return MHA_ERR_ARGUMENT;
  }
  if (backend == MHA_CUDA) {
    if (!cuda_compiled()) return MHA_ERR_NO_CUDA;
    const Fp8FwdLauncher launcher = fp8_fwd_launcher(a.head_dim, a.causal != 0);
    if (launcher == nullptr) return MHA_ERR_UNSUPPORTED;
    if (!a.workspace || reinterpret_cast<std::uintptr_t>(a.workspace) % 16 != 0) return MHA_ERR_ARGUMENT;
    const cuda::FwdParams fwd{a.q,     a.k,      a.v,         a.out, a.lse, a.batch, a.heads, a.seq_len,
                              a.scale * a.q_scale * a.k_scale};
    return cuda_status(launcher(cuda::Fp8FwdParams{fwd, a.v_scale, a.out_dtype == MHA_BF16, a.workspace}, stream));
  }
  const mha::Shape s = shape_of(a.batch, a.heads, a.seq_len, a.head_dim, a.scale, a.causal);
  const std::size_t n = s.elements();
  const std::vector<float> q = dequantised(a.q, n, a.q_scale), k = dequantised(a.k, n, a.k_scale),
                           v = dequantised(a.v, n, a.v_scale);
  FloatOutput out(a.out_dtype, a.out, n);
  auto kernel = backend == MHA_CPU_REFERENCE ? mha::cpu_reference_fwd : mha::cpu_blocked_fwd;
  kernel(s, q.data(), k.data(), v.data(), out.get(), a.lse);
  out.commit();
  return MHA_OK;
}

// Maps exceptions (allocation failures of the CPU scratch buffers) to status codes.
template <typename Run>
int guarded(Run run) {
  try {
    return run();
  } catch (const std::bad_alloc &) {
    return MHA_ERR_MEMORY;
  } catch (...) {
    return MHA_ERR_ARGUMENT;
  }
}

}  // namespace

extern "C" {

const char *mha_version(void) { return "0.2.0"; }

int mha_kernel_variant(void) { return mha::kernel_variant(); }

int mha_cuda_available(void) { return cuda_compiled() ? 1 : 0; }

int mha_fwd(mha_backend backend, const mha_fwd_args *args, void *stream) {
  if (!args) return MHA_ERR_ARGUMENT;
  return guarded([&] { return run_fwd(backend, *args, stream); });
}

int mha_bwd(mha_backend backend, const mha_bwd_args *args, void *stream) {
  if (!args) return MHA_ERR_ARGUMENT;
  return guarded([&] { return run_bwd(backend, *args, stream); });
}

int mha_fwd_fp8(mha_backend backend, const mha_fwd_fp8_args *args, void *stream) {
  if (!args) return MHA_ERR_ARGUMENT;
  return guarded([&] { return run_fwd_fp8(backend, *args, stream); });
}

size_t mha_fwd_fp8_workspace_size(int batch, int heads, int seq_len, int head_dim) {
  if (!valid_shape(batch, heads, seq_len, head_dim)) return 0;
  return mha::cuda::fp8_fwd_workspace_bytes(static_cast<size_t>(batch) * heads, seq_len, head_dim);
}

size_t mha_bwd_workspace_size(int batch, int heads, int seq_len) {
  if (!valid_shape(batch, heads, seq_len, 1)) return 0;
  const size_t rows = static_cast<size_t>(batch) * heads * seq_len;
  return sizeof(float) * (dq_accum_offset(rows) + rows * kMaxCudaHeadDim);
}

const char *mha_status_string(int status) {
  switch (status) {
    case MHA_OK: return "ok";
    case MHA_ERR_ARGUMENT:
      return "invalid argument (null pointer, non-positive size, unknown dtype or backend; FP8: a scale not finite "
             "and positive, a workspace missing or unaligned)";
    case MHA_ERR_UNSUPPORTED:
      return "not supported by this backend: head_dim (CUDA: 64 or 128), or FP8 off an H100/H200, at a head_dim "
             "other than 128 or with unaligned tensors";
    case MHA_ERR_NO_CUDA: return "libmha was built without nvcc: no CUDA kernels";
    case MHA_ERR_CUDA: return "CUDA error (see mha_last_cuda_error)";
    case MHA_ERR_MEMORY: return "out of host memory for scratch buffers";
    default: return "unknown status";
  }
}

const char *mha_last_cuda_error(void) { return last_cuda_error.c_str(); }

}  // extern "C"
