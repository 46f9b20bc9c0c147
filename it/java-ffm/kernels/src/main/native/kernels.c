#include "kernels.h"

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
