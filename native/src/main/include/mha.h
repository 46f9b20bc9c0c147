/*
 * Public C API of libmha: multi-head attention forward and backward.
 *
 * Tensors are contiguous [batch, heads, seq_len, head_dim] (the layout of PyTorch's
 * scaled_dot_product_attention). Element type: mha_dtype; the log-sum-exp rows and the backward
 * workspace are float32 (the workspace: mha_bwd_workspace_size() bytes, scratch the backward owns
 * during the call). Only mha_* symbols are exported.
 *
 *   out = softmax(q k^T * scale [+ causal mask]) v,  lse = log(sum(exp(q k^T * scale)))
 *
 * mha_fwd_fp8 is the same forward over FP8 (e4m3) inputs with a scale per tensor.
 *
 * CPU backends take host pointers and ignore the stream; MHA_CUDA takes device pointers and runs
 * asynchronously on the given cudaStream_t (NULL: the default stream).
 */
#ifndef MHA_H
#define MHA_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MHA_API __attribute__((visibility("default")))

typedef enum { MHA_F32 = 0, MHA_F16 = 1, MHA_BF16 = 2 } mha_dtype;

typedef enum {
  MHA_CPU_REFERENCE = 0, /* plain loops, one thread: the yardstick */
  MHA_CPU_BLOCKED = 1,   /* key/query tiles with online softmax, all cores */
  MHA_CUDA = 2           /* flash-attention style kernels; head_dim 64 or 128 */
} mha_backend;

typedef enum {
  MHA_OK = 0,
  MHA_ERR_ARGUMENT = 1,    /* null pointer, non-positive size, unknown dtype or backend; FP8: a
                              scale not finite and positive, a workspace missing or unaligned */
  MHA_ERR_UNSUPPORTED = 2, /* head_dim without a kernel instance on this backend; FP8: not this GPU */
  MHA_ERR_NO_CUDA = 3,     /* the library was built without nvcc */
  MHA_ERR_CUDA = 4,        /* a CUDA launch failed: see mha_last_cuda_error() */
  MHA_ERR_MEMORY = 5       /* a CPU backend could not allocate its scratch buffers */
} mha_status;

typedef struct {
  mha_dtype dtype;
  int batch, heads, seq_len, head_dim;
  float scale; /* usually 1/sqrt(head_dim) */
  int causal;  /* nonzero: query i attends to keys 0..i */
  const void *q, *k, *v;
  void *out;
  float *lse; /* optional (NULL) for inference; the backward pass needs it */
} mha_fwd_args;

typedef struct {
  mha_dtype dtype;
  int batch, heads, seq_len, head_dim;
  float scale;
  int causal;
  const void *q, *k, *v, *out, *dout;
  const float *lse; /* from mha_fwd */
  void *dq, *dk, *dv;
  float *workspace; /* MHA_CUDA: mha_bwd_workspace_size() bytes on the device (16-byte aligned, as
                       cudaMalloc's are, for the fused backward; else the two passes run);
                       CPU: NULL is fine */
} mha_bwd_args;

/* The forward over FP8 inputs: q, k and v hold OCP FP8 E4M3 bytes (PyTorch's torch.float8_e4m3fn:
 * 4 exponent bits, 3 mantissa bits, finite up to 448; 0x7f and 0xff are NaN) in the layout above,
 * standing for their values times q_scale, k_scale and v_scale; out is MHA_F16 or MHA_BF16.
 * MHA_CUDA runs it on H100/H200-class GPUs (compute capability 9.0, sm_90a code in the library) for
 * head_dim 128, with q, k and v 16-byte aligned, and answers MHA_ERR_UNSUPPORTED elsewhere. The
 * attention weights go into the second product as e4m3 too (at 256 times their value, where e4m3
 * keeps 3 bits of mantissa from 2^-6 up), so out carries their rounding: a few percent of its
 * largest magnitude, against about 0.1 % for fp16 inputs. The CPU backends compute in float32 from
 * the inputs' exact values. */
typedef struct {
  mha_dtype out_dtype; /* MHA_F16 or MHA_BF16 */
  int batch, heads, seq_len, head_dim;
  float scale; /* of the dequantised scores: usually 1/sqrt(head_dim) */
  int causal;
  const void *q, *k, *v;
  float q_scale, k_scale, v_scale; /* finite and positive */
  void *out;
  float *lse;      /* optional (NULL) */
  void *workspace; /* MHA_CUDA: mha_fwd_fp8_workspace_size() bytes on the device, 16-byte aligned
                      (V transposed goes there); CPU: NULL is fine */
} mha_fwd_fp8_args;

/* Library version as "major.minor.patch". */
MHA_API const char *mha_version(void);

/* The kernel build variant compiled into this copy (MHA_KERNEL_VARIANT; 1 for releases). */
MHA_API int mha_kernel_variant(void);

/* 1 when the CUDA kernels were compiled into this library. */
MHA_API int mha_cuda_available(void);

MHA_API int mha_fwd(mha_backend backend, const mha_fwd_args *args, void *stream);
MHA_API int mha_bwd(mha_backend backend, const mha_bwd_args *args, void *stream);
MHA_API int mha_fwd_fp8(mha_backend backend, const mha_fwd_fp8_args *args, void *stream);
/* Bytes of device workspace mha_fwd_fp8 needs for these sizes (0 for a non-positive size). */
MHA_API size_t mha_fwd_fp8_workspace_size(int batch, int heads, int seq_len, int head_dim);
/* Bytes of device workspace mha_bwd needs for these sizes (any head_dim): a float32 row sum per
 * query row, and on an H100/H200 float32 dQ that every key block adds to (the fused backward; the
 * order of those additions varies, so dQ can differ in its last bits from run to run: set the
 * environment variable MHA_DETERMINISTIC=1 for two passes that give the same bits every run), and
 * at head_dim 64 float32 dK and dV of key blocks that it splits in parts (summed in a fixed order). */
MHA_API size_t mha_bwd_workspace_size(int batch, int heads, int seq_len);

/* A fixed description of a status code. */
MHA_API const char *mha_status_string(int status);

/* The CUDA error text of the last MHA_ERR_CUDA on this thread, or "" */
MHA_API const char *mha_last_cuda_error(void);

#ifdef __cplusplus
}
#endif
#endif
