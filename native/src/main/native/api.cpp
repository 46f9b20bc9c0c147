// Host glue: the exported C API forwards to the kernels of the mha_fwd archive.
#include "mha.h"
#include "mha_internal.h"

extern "C" const char *mha_version(void) { return "0.1.0"; }

extern "C" int mha_fwd_cpu_f32(const float *q, const float *k, const float *v, float *out,
                               int batch, int heads, int seq_len, int head_dim,
                               float scale, int causal) {
  if (!q || !k || !v || !out || batch <= 0 || heads <= 0 || seq_len <= 0 || head_dim <= 0) {
    return 1;
  }
  mha::attention_forward_reference(q, k, v, out, static_cast<size_t>(batch) * heads, seq_len,
                                   head_dim, scale, causal != 0);
  return 0;
}
