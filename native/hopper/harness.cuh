// Host-side harness shared by the Hopper forward prototypes: a float64 CPU reference check and an
// event-timed loop, both over a caller's launch function, for fp16 or bf16 inputs of layout
// [batch * heads][seq][D]. Keeps each prototype file to its kernel.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("CUDA error %s at %s:%d\n", \
    cudaGetErrorString(e), __FILE__, __LINE__); exit(1); } } while (0)

template <typename T> struct Element;
template <> struct Element<__half> {
  static const char *name() { return "fp16"; }
  static __host__ __device__ __half of(float x) { return __float2half(x); }
  static float value(__half x) { return __half2float(x); }
};
template <> struct Element<__nv_bfloat16> {
  static const char *name() { return "bf16"; }
  static __host__ __device__ __nv_bfloat16 of(float x) { return __float2bfloat16(x); }
  static float value(__nv_bfloat16 x) { return __bfloat162float(x); }
};

// launch(causal, q, k, v, o, batch, heads, seq): runs the kernel under test on the current stream.
template <typename T>
using Launch = std::function<void(bool, const T *, const T *, const T *, T *, int, int, int)>;

// Relative error (L2) against float64 at B=1, H=2, random inputs in [-1, 1), output poisoned with NaN
// first; prints one line per mask. Returns false when an error exceeds `tolerance` or a NaN shows.
template <typename T>
bool check_against_cpu(const Launch<T> &launch, int d, int seq, double tolerance) {
  const int b = 1, h = 2;
  const size_t n = static_cast<size_t>(b) * h * seq * d;
  std::vector<T> hq(n), hk(n), hv(n), ho(n);
  std::vector<double> fq(n), fk(n), fv(n);
  srand(11);
  auto random = [] { return (rand() / static_cast<float>(RAND_MAX) - 0.5f) * 2; };
  for (size_t i = 0; i < n; ++i) {
    fq[i] = Element<T>::value(hq[i] = Element<T>::of(random()));
    fk[i] = Element<T>::value(hk[i] = Element<T>::of(random()));
    fv[i] = Element<T>::value(hv[i] = Element<T>::of(random()));
  }
  T *dq, *dk, *dv, *dout;
  CHECK(cudaMalloc(&dq, n * sizeof(T))); CHECK(cudaMalloc(&dk, n * sizeof(T)));
  CHECK(cudaMalloc(&dv, n * sizeof(T))); CHECK(cudaMalloc(&dout, n * sizeof(T)));
  CHECK(cudaMemcpy(dq, hq.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dk, hk.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(dv, hv.data(), n * sizeof(T), cudaMemcpyHostToDevice));
  bool ok = true;
  for (int causal = 0; causal < 2; ++causal) {
    CHECK(cudaMemset(dout, 0xff, n * sizeof(T)));  // NaN in both formats
    launch(causal, dq, dk, dv, dout, b, h, seq);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(ho.data(), dout, n * sizeof(T), cudaMemcpyDeviceToHost));
    double num = 0, den = 0;
    bool nan = false;
    for (int hh = 0; hh < b * h; ++hh) {
      for (int i = 0; i < seq; ++i) {
        std::vector<double> w(seq);
        double mx = -1e300, sum = 0;
        const int last = causal ? i : seq - 1;
        for (int j = 0; j <= last; ++j) {
          double dot = 0;
          for (int x = 0; x < d; ++x) dot += fq[(hh * seq + i) * d + x] * fk[(hh * seq + j) * d + x];
          w[j] = dot / std::sqrt(static_cast<double>(d));
          mx = std::max(mx, w[j]);
        }
        for (int j = 0; j <= last; ++j) sum += (w[j] = std::exp(w[j] - mx));
        for (int x = 0; x < d; ++x) {
          double ref = 0;
          for (int j = 0; j <= last; ++j) ref += w[j] * fv[(hh * seq + j) * d + x];
          ref /= sum;
          const double got = Element<T>::value(ho[(hh * seq + i) * d + x]);
          nan |= std::isnan(got);
          num += (got - ref) * (got - ref);
          den += ref * ref;
        }
      }
    }
    const double error = std::sqrt(num / den);
    ok &= !nan && error <= tolerance;
    printf("check %s %s d%d seq %d: relative error %.2e%s\n", Element<T>::name(), causal ? "causal" : "full", d, seq,
           error, nan ? " (NaN!)" : error > tolerance ? " (TOO LARGE)" : "");
  }
  cudaFree(dq); cudaFree(dk); cudaFree(dv); cudaFree(dout);
  return ok;
}

// Median of 20 timed launches after 3 warm-ups, B=4, H=16, for each seq; one line per mask.
template <typename T>
void time_launches(const Launch<T> &launch, int d, std::initializer_list<int> seqs) {
  for (int seq : seqs) {
    const int b = 4, h = 16;
    const size_t n = static_cast<size_t>(b) * h * seq * d;
    T *dq, *dk, *dv, *dout;
    CHECK(cudaMalloc(&dq, n * sizeof(T))); CHECK(cudaMalloc(&dk, n * sizeof(T)));
    CHECK(cudaMalloc(&dv, n * sizeof(T))); CHECK(cudaMalloc(&dout, n * sizeof(T)));
    std::vector<T> init(n);
    for (size_t i = 0; i < n; ++i) init[i] = Element<T>::of((i * 2654435761u % 1000) / 1000.f - 0.5f);
    CHECK(cudaMemcpy(dq, init.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dk, init.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dv, init.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    for (int causal = 0; causal < 2; ++causal) {
      for (int i = 0; i < 3; ++i) launch(causal, dq, dk, dv, dout, b, h, seq);
      CHECK(cudaDeviceSynchronize());
      std::vector<float> ms;
      for (int i = 0; i < 20; ++i) {
        cudaEventRecord(e0);
        launch(causal, dq, dk, dv, dout, b, h, seq);
        cudaEventRecord(e1);
        cudaEventSynchronize(e1);
        float t;
        cudaEventElapsedTime(&t, e0, e1);
        ms.push_back(t);
      }
      CHECK(cudaGetLastError());
      std::sort(ms.begin(), ms.end());
      const double flops = 4.0 * b * h * static_cast<double>(seq) * seq * d * (causal ? 0.5 : 1.0);
      printf("time %s %s d%d seq %d: %.3f ms, %.0f TFLOP/s\n", Element<T>::name(), causal ? "causal" : "full", d, seq,
             ms[10], flops / ms[10] / 1e9);
    }
    cudaEventDestroy(e0);
    cudaEventDestroy(e1);
    cudaFree(dq); cudaFree(dk); cudaFree(dv); cudaFree(dout);
  }
}
