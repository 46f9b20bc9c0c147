/*
 * Tests libmha's CPU backends through the C API against a float64 reference on random inputs:
 * forward (out, lse) and backward (dq, dk, dv), for f32, f16 and bf16, causal and not, with sizes
 * that do not divide the tiles; the FP8 (e4m3) forward with its per-tensor scales. Outputs are poisoned with NaN first, so an element a kernel never
 * writes fails, and NaN never passes a bound.
 * Environment: MHA_EXPECT_CUDA=0|1 says whether the build compiled the CUDA kernels.
 */
#include "mha.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;

static void expect(int condition, const char *what) {
  if (!condition) {
    printf("FAIL %s\n", what);
    failures++;
  }
}

static double uniform(unsigned *state) {
  *state = *state * 1664525u + 1013904223u;
  return ((*state >> 8) / 16777216.0) * 2.0 - 1.0;
}

/* ---- dtype round trips, written independently of the library's own conversion ---- */

static float float_of(uint32_t bits) {
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

static uint32_t bits_of(float f) {
  uint32_t bits;
  memcpy(&bits, &f, sizeof bits);
  return bits;
}

static double from_bits(mha_dtype dtype, const void *data, size_t i) {
  if (dtype == MHA_F32) return ((const float *)data)[i];
  uint16_t h = ((const uint16_t *)data)[i];
  if (dtype == MHA_BF16) return float_of((uint32_t)h << 16);
  int exponent = (h >> 10) & 0x1f, mantissa = h & 0x3ff;
  double magnitude = exponent == 0    ? ldexp(mantissa, -24)
                     : exponent == 31 ? (mantissa ? NAN : INFINITY)
                                      : ldexp(1024 + mantissa, exponent - 25);
  return (h & 0x8000) ? -magnitude : magnitude;
}

/* Inputs are in [-1, 1]: normal fp16 range, so plain rounding of the float suffices here. */
static void to_bits(mha_dtype dtype, void *data, size_t i, double value) {
  if (dtype == MHA_F32) {
    ((float *)data)[i] = (float)value;
  } else if (dtype == MHA_BF16) {
    uint32_t x = bits_of((float)value);
    ((uint16_t *)data)[i] = (uint16_t)((x + 0x7fff + ((x >> 16) & 1)) >> 16);
  } else {
    int exponent;
    double m = frexp(fabs(value), &exponent); /* value = m * 2^exponent, m in [0.5, 1) */
    uint16_t sign = value < 0 ? 0x8000 : 0;
    if (value == 0 || exponent < -13) {
      ((uint16_t *)data)[i] = sign;
      return;
    }
    double steps = nearbyint(m * 2048); /* 11 significant bits, ties to even */
    if (steps == 2048) {
      steps = 1024;
      exponent++;
    }
    ((uint16_t *)data)[i] = (uint16_t)(sign | ((exponent + 14) << 10) | ((int)steps - 1024));
  }
}

/* OCP FP8 E4M3: sign, 4 exponent bits (bias 7), 3 mantissa bits; 0x7f and 0xff are NaN. */
static double e4m3_value(uint8_t bits) {
  int exponent = (bits >> 3) & 0xf, mantissa = bits & 7;
  double magnitude = exponent == 0xf && mantissa == 7 ? NAN
                     : exponent == 0                  ? ldexp(mantissa, -9)
                                                      : ldexp(8 + mantissa, exponent - 10);
  return (bits & 0x80) ? -magnitude : magnitude;
}

/* The e4m3 code nearest to value (|value| <= 448), by trying every finite one. */
static uint8_t e4m3_nearest(double value) {
  uint8_t best = 0;
  for (int code = 0; code < 256; code++) {
    if ((code & 0x7f) == 0x7f) continue;
    if (fabs(e4m3_value((uint8_t)code) - value) < fabs(e4m3_value(best) - value)) best = (uint8_t)code;
  }
  return best;
}

static void poison(mha_dtype dtype, void *data, size_t count) {
  if (dtype == MHA_F32) {
    for (size_t i = 0; i < count; i++) ((float *)data)[i] = NAN;
  } else {
    for (size_t i = 0; i < count; i++) ((uint16_t *)data)[i] = 0x7fc0; /* NaN as fp16 and as bf16 */
  }
}

/* ---- float64 reference ---- */

typedef struct {
  int batch, heads, seq, dim, causal;
  double scale;
} shape;

/* out, lse and the gradients for one problem, from the dequantized inputs. */
static void reference(const shape *s, const double *q, const double *k, const double *v,
                      const double *dout, double *out, double *lse, double *dq, double *dk,
                      double *dv) {
  int seq = s->seq, dim = s->dim;
  double *p = malloc(sizeof(double) * seq), *dp = malloc(sizeof(double) * seq);
  size_t slice = (size_t)seq * dim;
  memset(dk, 0, sizeof(double) * slice * s->batch * s->heads);
  memset(dv, 0, sizeof(double) * slice * s->batch * s->heads);
  for (int h = 0; h < s->batch * s->heads; h++) {
    size_t base = (size_t)h * slice;
    for (int i = 0; i < seq; i++) {
      int last = s->causal ? i : seq - 1;
      double m = -INFINITY, sum = 0, delta = 0;
      for (int j = 0; j <= last; j++) {
        double dot = 0;
        for (int d = 0; d < dim; d++) dot += q[base + i * dim + d] * k[base + j * dim + d];
        p[j] = dot * s->scale;
        if (p[j] > m) m = p[j];
      }
      for (int j = 0; j <= last; j++) sum += (p[j] = exp(p[j] - m));
      for (int j = 0; j <= last; j++) p[j] /= sum;
      lse[(size_t)h * seq + i] = m + log(sum);
      for (int d = 0; d < dim; d++) {
        double acc = 0;
        for (int j = 0; j <= last; j++) acc += p[j] * v[base + j * dim + d];
        out[base + i * dim + d] = acc;
        delta += acc * dout[base + i * dim + d];
      }
      for (int j = 0; j <= last; j++) {
        double g = 0;
        for (int d = 0; d < dim; d++) g += dout[base + i * dim + d] * v[base + j * dim + d];
        dp[j] = p[j] * (g - delta); /* dS */
      }
      for (int d = 0; d < dim; d++) {
        double acc = 0;
        for (int j = 0; j <= last; j++) {
          acc += dp[j] * k[base + j * dim + d];
          dk[base + j * dim + d] += dp[j] * q[base + i * dim + d] * s->scale;
          dv[base + j * dim + d] += p[j] * dout[base + i * dim + d];
        }
        dq[base + i * dim + d] = acc * s->scale;
      }
    }
  }
  free(p);
  free(dp);
}

/* Largest |got - want| over the largest |want|; NaN anywhere gives NaN. */
static double relative_error(mha_dtype dtype, const void *got, const double *want, size_t n) {
  double worst = 0, peak = 1e-30;
  for (size_t i = 0; i < n; i++) {
    double err = fabs(from_bits(dtype, got, i) - want[i]);
    if (!(err <= worst)) worst = err;
    if (fabs(want[i]) > peak) peak = fabs(want[i]);
  }
  return worst / peak;
}

/* Largest |got - want| over the log-sum-exp rows; NaN anywhere gives NaN. */
static double lse_error(const float *got, const double *want, size_t rows) {
  double worst = 0;
  for (size_t i = 0; i < rows; i++) {
    double err = fabs(got[i] - want[i]);
    if (!(err <= worst)) worst = err;
  }
  return worst;
}

static const char *dtype_name(mha_dtype dtype) {
  return dtype == MHA_F32 ? "f32" : dtype == MHA_F16 ? "f16" : "bf16";
}

/* Bound on the error relative to the largest magnitude: output rounding plus float32 arithmetic. */
static double bound(mha_dtype dtype) {
  return dtype == MHA_F32 ? 1e-5 : dtype == MHA_F16 ? 2e-3 : 1.6e-2;
}

static void check(mha_backend backend, mha_dtype dtype, shape s, unsigned seed) {
  size_t n = (size_t)s.batch * s.heads * s.seq * s.dim, rows = (size_t)s.batch * s.heads * s.seq;
  size_t width = dtype == MHA_F32 ? 4 : 2;
  void *q = malloc(n * width), *k = malloc(n * width), *v = malloc(n * width);
  void *dout = malloc(n * width), *out = malloc(n * width);
  void *dq = malloc(n * width), *dk = malloc(n * width), *dv = malloc(n * width);
  float *lse = malloc(rows * sizeof(float));
  double *qd = malloc(n * 8), *kd = malloc(n * 8), *vd = malloc(n * 8), *dod = malloc(n * 8);
  double *want_out = malloc(n * 8), *want_lse = malloc(rows * 8);
  double *want_dq = malloc(n * 8), *want_dk = malloc(n * 8), *want_dv = malloc(n * 8);
  for (size_t i = 0; i < n; i++) {
    to_bits(dtype, q, i, uniform(&seed));
    to_bits(dtype, k, i, uniform(&seed));
    to_bits(dtype, v, i, uniform(&seed));
    to_bits(dtype, dout, i, uniform(&seed));
    qd[i] = from_bits(dtype, q, i);
    kd[i] = from_bits(dtype, k, i);
    vd[i] = from_bits(dtype, v, i);
    dod[i] = from_bits(dtype, dout, i);
  }
  poison(dtype, out, n);
  poison(dtype, dq, n);
  poison(dtype, dk, n);
  poison(dtype, dv, n);
  for (size_t i = 0; i < rows; i++) lse[i] = NAN;
  reference(&s, qd, kd, vd, dod, want_out, want_lse, want_dq, want_dk, want_dv);

  mha_fwd_args fwd = {dtype, s.batch, s.heads, s.seq, s.dim, (float)s.scale, s.causal,
                      q,     k,       v,       out,   lse};
  int rc_fwd = mha_fwd(backend, &fwd, NULL);
  double err_lse = lse_error(lse, want_lse, rows);
  double err_out = relative_error(dtype, out, want_out, n);
  /* The backward runs on the library's own forward output, as training does. */
  mha_bwd_args bwd = {dtype, s.batch, s.heads, s.seq, s.dim, (float)s.scale, s.causal,
                      q, k, v, out, dout, lse, dq, dk, dv, NULL};
  int rc_bwd = mha_bwd(backend, &bwd, NULL);
  double err_dq = relative_error(dtype, dq, want_dq, n);
  double err_dk = relative_error(dtype, dk, want_dk, n);
  double err_dv = relative_error(dtype, dv, want_dv, n);
  double b = bound(dtype);
  /* Gradients go through one more rounding of out and a longer sum: twice the output bound. */
  int ok = rc_fwd == MHA_OK && rc_bwd == MHA_OK && err_out <= b && err_lse <= 1e-4 &&
           err_dq <= 2 * b && err_dk <= 2 * b && err_dv <= 2 * b;
  printf("%s %s %-4s b=%d h=%d s=%d d=%d causal=%d  out %.2e lse %.2e dq %.2e dk %.2e dv %.2e "
         "(bound %.0e)\n",
         ok ? "PASS" : "FAIL", backend == MHA_CPU_REFERENCE ? "reference" : "blocked  ",
         dtype_name(dtype), s.batch, s.heads, s.seq, s.dim, s.causal, err_out, err_lse, err_dq,
         err_dk, err_dv, b);
  if (!ok) failures++;
  free(q); free(k); free(v); free(dout); free(out); free(dq); free(dk); free(dv); free(lse);
  free(qd); free(kd); free(vd); free(dod); free(want_out); free(want_lse);
  free(want_dq); free(want_dk); free(want_dv);
}

/* The FP8 forward: e4m3 inputs in [-1, 1] once scaled (each tensor with its own scale), against the
 * float64 reference on the values the bytes stand for. */
static void check_fp8(mha_backend backend, mha_dtype out_dtype, shape s, unsigned seed) {
  size_t n = (size_t)s.batch * s.heads * s.seq * s.dim, rows = (size_t)s.batch * s.heads * s.seq;
  const double units[3] = {160, 224, 100}; /* e4m3 steps per unit of q, k, v */
  uint8_t *bytes[3];
  double *values[3];
  for (int t = 0; t < 3; t++) {
    bytes[t] = malloc(n);
    values[t] = malloc(n * 8);
    for (size_t i = 0; i < n; i++) {
      bytes[t][i] = e4m3_nearest(uniform(&seed) * units[t]);
      values[t][i] = e4m3_value(bytes[t][i]) / units[t];
    }
  }
  void *out = malloc(n * 2);
  float *lse = malloc(rows * sizeof(float));
  double *zeros = calloc(n, 8), *want_out = malloc(n * 8), *want_lse = malloc(rows * 8);
  double *g[3] = {malloc(n * 8), malloc(n * 8), malloc(n * 8)};
  poison(out_dtype, out, n);
  for (size_t i = 0; i < rows; i++) lse[i] = NAN;
  reference(&s, values[0], values[1], values[2], zeros, want_out, want_lse, g[0], g[1], g[2]);
  mha_fwd_fp8_args fwd = {out_dtype, s.batch, s.heads, s.seq, s.dim, (float)s.scale, s.causal,
                          bytes[0], bytes[1], bytes[2], (float)(1 / units[0]), (float)(1 / units[1]),
                          (float)(1 / units[2]), out, lse, NULL};
  int rc = mha_fwd_fp8(backend, &fwd, NULL);
  double err_lse = lse_error(lse, want_lse, rows);
  /* The 1/units scales are not exact in float32: a relative 6e-8 on each input, far below the bound. */
  double err_out = relative_error(out_dtype, out, want_out, n);
  int ok = rc == MHA_OK && err_out <= bound(out_dtype) && err_lse <= 1e-4;
  printf("%s %s e4m3->%-4s b=%d h=%d s=%d d=%d causal=%d  out %.2e lse %.2e (bound %.0e)\n", ok ? "PASS" : "FAIL",
         backend == MHA_CPU_REFERENCE ? "reference" : "blocked  ", dtype_name(out_dtype), s.batch, s.heads, s.seq,
         s.dim, s.causal, err_out, err_lse, bound(out_dtype));
  if (!ok) failures++;
  for (int t = 0; t < 3; t++) {
    free(bytes[t]);
    free(values[t]);
    free(g[t]);
  }
  free(out); free(lse); free(zeros); free(want_out); free(want_lse);
}

static void check_fp8_api_errors(void) {
  uint8_t x[128] = {0};
  uint16_t out[128];
  mha_fwd_fp8_args fwd = {MHA_F16, 1, 1, 1, 128, 0.125f, 0, x, x, x, 1.f, 1.f, 1.f, out, NULL, NULL};
  expect(mha_fwd_fp8(MHA_CPU_BLOCKED, &fwd, NULL) == MHA_OK, "fp8 forward on the CPU");
  expect(mha_fwd_fp8(MHA_CPU_BLOCKED, NULL, NULL) == MHA_ERR_ARGUMENT, "fp8: null args rejected");
  mha_fwd_fp8_args bad = fwd;
  bad.out_dtype = MHA_F32;
  expect(mha_fwd_fp8(MHA_CPU_BLOCKED, &bad, NULL) == MHA_ERR_ARGUMENT, "fp8: f32 output rejected");
  bad = fwd;
  bad.k_scale = 0.f;
  expect(mha_fwd_fp8(MHA_CPU_BLOCKED, &bad, NULL) == MHA_ERR_ARGUMENT, "fp8: zero scale rejected");
  bad = fwd;
  bad.v_scale = NAN;
  expect(mha_fwd_fp8(MHA_CPU_REFERENCE, &bad, NULL) == MHA_ERR_ARGUMENT, "fp8: NaN scale rejected");
  bad = fwd;
  bad.v = NULL;
  expect(mha_fwd_fp8(MHA_CPU_REFERENCE, &bad, NULL) == MHA_ERR_ARGUMENT, "fp8: null v rejected");
  /* V transposed, keys padded to 128: 2 x 3 heads x 128 dims x 128 keys of one byte */
  expect(mha_fwd_fp8_workspace_size(2, 3, 5, 128) == 2 * 3 * 128 * 128, "fp8 workspace size");
  expect(mha_fwd_fp8_workspace_size(2, 3, 0, 128) == 0, "fp8 workspace size of nothing");
  if (mha_cuda_available()) {
    /* Argument checks come before any CUDA call, so these run without a GPU. */
    expect(mha_fwd_fp8(MHA_CUDA, &fwd, NULL) == MHA_ERR_ARGUMENT, "CUDA fp8 forward without workspace");
    bad = fwd;
    bad.head_dim = 64;
    expect(mha_fwd_fp8(MHA_CUDA, &bad, NULL) == MHA_ERR_UNSUPPORTED, "CUDA fp8 head_dim 64 unsupported");
  } else {
    expect(mha_fwd_fp8(MHA_CUDA, &fwd, NULL) == MHA_ERR_NO_CUDA, "fp8: CUDA backend absent");
  }
}

static void check_api_errors(void) {
  float x[64] = {0}, lse[1];
  mha_fwd_args fwd = {MHA_F32, 1, 1, 1, 64, 0.125f, 0, x, x, x, x, lse};
  expect(mha_fwd(MHA_CPU_BLOCKED, NULL, NULL) == MHA_ERR_ARGUMENT, "null args rejected");
  mha_fwd_args bad = fwd;
  bad.q = NULL;
  expect(mha_fwd(MHA_CPU_BLOCKED, &bad, NULL) == MHA_ERR_ARGUMENT, "null q rejected");
  bad = fwd;
  bad.seq_len = 0;
  expect(mha_fwd(MHA_CPU_REFERENCE, &bad, NULL) == MHA_ERR_ARGUMENT, "seq_len 0 rejected");
  bad = fwd;
  bad.dtype = (mha_dtype)7;
  expect(mha_fwd(MHA_CPU_REFERENCE, &bad, NULL) == MHA_ERR_ARGUMENT, "unknown dtype rejected");
  expect(mha_fwd((mha_backend)9, &fwd, NULL) == MHA_ERR_ARGUMENT, "unknown backend rejected");
  mha_bwd_args bwd = {MHA_F32, 1, 1, 1, 64, 0.125f, 0, x, x, x, x, x, NULL, x, x, x, NULL};
  expect(mha_bwd(MHA_CPU_BLOCKED, &bwd, NULL) == MHA_ERR_ARGUMENT, "backward without lse rejected");
  /* 30 row sums (rounded up to 32, a 16-byte boundary), then float32 dQ at head dim 128 */
  expect(mha_bwd_workspace_size(2, 3, 5) == (32 + 2 * 3 * 5 * 128) * sizeof(float), "workspace size");
  expect(strcmp(mha_status_string(MHA_ERR_NO_CUDA), "libmha was built without nvcc: no CUDA kernels") == 0,
         "status string");

  const char *expected = getenv("MHA_EXPECT_CUDA");
  int cuda = mha_cuda_available();
  printf("CUDA kernels compiled in: %s\n", cuda ? "yes" : "no");
  if (expected) expect(cuda == atoi(expected), "mha_cuda_available() matches the build");
  if (cuda) {
    /* Argument checks come before any CUDA call, so these run without a GPU. */
    mha_fwd_args odd = fwd;
    odd.head_dim = 96;
    expect(mha_fwd(MHA_CUDA, &odd, NULL) == MHA_ERR_UNSUPPORTED, "CUDA head_dim 96 unsupported");
    expect(mha_bwd(MHA_CUDA, &bwd, NULL) == MHA_ERR_ARGUMENT, "CUDA backward without workspace");
  } else {
    expect(mha_fwd(MHA_CUDA, &fwd, NULL) == MHA_ERR_NO_CUDA, "CUDA backend absent");
  }
}

int main(void) {
  expect(strcmp(mha_version(), "0.2.0") == 0, "version");
  expect(mha_kernel_variant() == 1, "release kernel variant");
  check_api_errors();
  check_fp8_api_errors();
  const mha_dtype dtypes[] = {MHA_F32, MHA_F16, MHA_BF16};
  const mha_backend backends[] = {MHA_CPU_REFERENCE, MHA_CPU_BLOCKED};
  unsigned seed = 1;
  for (int b = 0; b < 2; b++) {
    for (int t = 0; t < 3; t++) {
      for (int causal = 0; causal <= 1; causal++) {
        /* 67 and 130 rows straddle the 32- and 64-row tiles; 24 is not a multiple of anything. */
        shape small = {2, 3, 67, 64, causal, 1.0 / sqrt(64.0)};
        shape wide = {1, 2, 130, 128, causal, 1.0 / sqrt(128.0)};
        shape odd = {1, 1, 5, 24, causal, 0.3};
        check(backends[b], dtypes[t], small, seed++);
        check(backends[b], dtypes[t], wide, seed++);
        check(backends[b], dtypes[t], odd, seed++);
      }
    }
  }
  for (int b = 0; b < 2; b++) {
    for (int causal = 0; causal <= 1; causal++) {
      shape small = {2, 3, 67, 64, causal, 1.0 / sqrt(64.0)};
      shape wide = {1, 2, 130, 128, causal, 1.0 / sqrt(128.0)};
      check_fp8(backends[b], MHA_F16, small, seed++);
      check_fp8(backends[b], MHA_BF16, wide, seed++);
    }
  }
  printf(failures ? "C API tests FAILED (%d)\n" : "all C API tests passed\n", failures);
  return failures ? 1 : 0;
}
