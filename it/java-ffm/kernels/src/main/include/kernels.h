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

/* Passed and returned by value. */
typedef struct {
  float x, y;
} kn_vec2;

/* An array field and a nested struct. */
struct kn_poly {
  kn_vec2 origin;
  float weights[4];
  int count;
};

/* A union by value: which member holds the value is the caller's to say. */
union kn_number {
  int i;
  double d;
};

/* A bit-field: the binding skips it, with a warning, and binds the rest. */
typedef struct {
  unsigned ready : 1;
  int level;
} kn_flags;

kn_vec2 kn_add(kn_vec2 a, kn_vec2 b);
/* weights[i] * (i + 1) summed, plus origin.x + origin.y. */
float kn_poly_weigh(const struct kn_poly *poly);
struct kn_poly kn_poly_make(float weight);
double kn_number_value(union kn_number number, int is_double);
int kn_flags_level(const kn_flags *flags);
/* snprintf into out: printf-style variable arguments. */
int kn_format(char *out, size_t size, const char *format, ...);

/* Not exported (<exports> is kn_*): the binding leaves it out. */
int kernels_private_helper(int value);

#ifdef __cplusplus
}
#endif
#endif
