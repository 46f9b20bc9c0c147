#include "kernels.h"

#include <stdarg.h>
#include <stdio.h>

float kn_reduce_view(kn_view *view) {
  float result = view->how == KN_MAX ? view->data[0] * view->scale : 0.0f;
  for (int64_t i = 0; i < view->length; i++) {
    float v = view->data[i] * view->scale;
    if (view->how == KN_MAX) {
      result = v > result ? v : result;
    } else {
      result += v;
    }
  }
  view->checked = 1;
  return view->how == KN_MEAN ? result / (float) view->length : result;
}

int kn_axpy(float a, const float *x, float *y, size_t n) {
  for (size_t i = 0; i < n; i++) y[i] += a * x[i];
  return (int) n;
}

int64_t kn_count_above(const float *x, int64_t n, double threshold) {
  int64_t count = 0;
  for (int64_t i = 0; i < n; i++) count += x[i] > threshold;
  return count;
}

const char *kn_version(void) { return "kernels 1.0"; }

void kn_fill(float *out, int n, float value) {
  for (int i = 0; i < n; i++) out[i] = value;
}

int kernels_private_helper(int value) { return value * 2; }

kn_vec2 kn_add(kn_vec2 a, kn_vec2 b) {
  kn_vec2 sum = {a.x + b.x, a.y + b.y};
  return sum;
}

float kn_poly_weigh(const struct kn_poly *poly) {
  float total = poly->origin.x + poly->origin.y;
  for (int i = 0; i < 4; i++) total += poly->weights[i] * (float) (i + 1);
  return total;
}

struct kn_poly kn_poly_make(float weight) {
  struct kn_poly poly = {{1.0f, 2.0f}, {weight, weight, weight, weight}, 4};
  return poly;
}

double kn_number_value(union kn_number number, int is_double) {
  return is_double ? number.d : (double) number.i;
}

int kn_flags_level(const kn_flags *flags) { return flags->ready ? flags->level : -1; }

int kn_format(char *out, size_t size, const char *format, ...) {
  va_list args;
  va_start(args, format);
  int written = vsnprintf(out, size, format, args);
  va_end(args);
  return written;
}
