/* Tests libmha's C API against a float64 reference on random inputs. */
#include "mha.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double uniform(unsigned *state) {
  *state = *state * 1664525u + 1013904223u;
  return ((*state >> 8) / 16777216.0) * 2.0 - 1.0;
}

static void reference(const float *q, const float *k, const float *v, double *out, int heads,
                      int seq, int dim, double scale, int causal) {
  double *p = malloc(sizeof(double) * seq);
  for (int h = 0; h < heads; h++) {
    size_t base = (size_t)h * seq * dim;
    for (int i = 0; i < seq; i++) {
      int last = causal ? i : seq - 1;
      double m = -INFINITY, sum = 0;
      for (int j = 0; j <= last; j++) {
        double s = 0;
        for (int d = 0; d < dim; d++) s += (double)q[base + i * dim + d] * k[base + j * dim + d];
        p[j] = s * scale;
        if (p[j] > m) m = p[j];
      }
      for (int j = 0; j <= last; j++) sum += (p[j] = exp(p[j] - m));
      for (int d = 0; d < dim; d++) {
        double acc = 0;
        for (int j = 0; j <= last; j++) acc += p[j] * v[base + j * dim + d];
        out[base + i * dim + d] = acc / sum;
      }
    }
  }
  free(p);
}

static int check(int batch, int heads, int seq, int dim, int causal, unsigned seed) {
  size_t n = (size_t)batch * heads * seq * dim;
  float *q = malloc(n * sizeof(float)), *k = malloc(n * sizeof(float));
  float *v = malloc(n * sizeof(float)), *out = malloc(n * sizeof(float));
  double *want = malloc(n * sizeof(double));
  for (size_t i = 0; i < n; i++) {
    q[i] = (float)uniform(&seed);
    k[i] = (float)uniform(&seed);
    v[i] = (float)uniform(&seed);
    out[i] = NAN; /* poison: an element the kernel never writes fails the comparison */
  }
  double scale = 1.0 / sqrt((double)dim);
  int rc = mha_fwd_cpu_f32(q, k, v, out, batch, heads, seq, dim, (float)scale, causal);
  reference(q, k, v, want, batch * heads, seq, dim, scale, causal);
  double worst = 0;
  for (size_t i = 0; i < n; i++) {
    double err = fabs(out[i] - want[i]);
    if (!(err <= worst)) worst = err; /* NaN propagates into worst and fails below */
  }
  int ok = rc == 0 && worst < 1e-5;
  printf("%s fwd f32 b=%d h=%d s=%d d=%d causal=%d max_abs_err=%.3g\n", ok ? "PASS" : "FAIL", batch,
         heads, seq, dim, causal, worst);
  free(q); free(k); free(v); free(out); free(want);
  return ok;
}

int main(void) {
  int ok = 1;
  ok &= strcmp(mha_version(), "0.1.0") == 0;
  ok &= mha_fwd_cpu_f32(NULL, NULL, NULL, NULL, 1, 1, 1, 1, 1.f, 0) != 0;
  ok &= check(1, 1, 1, 8, 0, 1u);
  ok &= check(2, 3, 17, 64, 0, 2u);
  ok &= check(2, 3, 17, 64, 1, 3u);
  ok &= check(1, 2, 64, 128, 1, 4u);
  printf(ok ? "all C API tests passed\n" : "C API tests FAILED\n");
  return ok ? 0 : 1;
}
