#ifndef KERNELS_H
#define KERNELS_H
#include <stddef.h>
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

typedef enum { KN_SUM = 0, KN_MAX = 1, KN_MEAN = 2 } kn_reduce;

/* A strided view of floats and what to do with it. */
typedef struct {
  const float *data;
  int64_t length;
  float scale;
  kn_reduce how;
  uint8_t checked;
} kn_view;

/* sum, max or mean of data[i] * scale; sets view->checked. */
float kn_reduce_view(kn_view *view);
/* y += a * x over n elements; returns n. */
int kn_axpy(float a, const float *x, float *y, size_t n);
int64_t kn_count_above(const float *x, int64_t n, double threshold);
const char *kn_version(void);
void kn_fill(float *out, int n, float value);

/* Not exported (<exports> is kn_*): the binding leaves it out. */
int kernels_private_helper(int value);

#ifdef __cplusplus
}
#endif
#endif
