/* Public C API of libmha: multi-head attention kernels. Only mha_* symbols are exported. */
#ifndef MHA_H
#define MHA_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MHA_API __attribute__((visibility("default")))

/* Library version as "major.minor.patch". */
MHA_API const char *mha_version(void);

/*
 * Attention forward on the CPU, float32, layout [batch, heads, seq, head_dim] (contiguous):
 * out = softmax(q k^T * scale [+ causal mask]) v. Returns 0 on success, nonzero on bad arguments.
 */
MHA_API int mha_fwd_cpu_f32(const float *q, const float *k, const float *v, float *out,
                            int batch, int heads, int seq_len, int head_dim,
                            float scale, int causal);

#ifdef __cplusplus
}
#endif
#endif
