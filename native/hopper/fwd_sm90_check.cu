// Checks and times libmha's sm_90a forward (src/main/headers/mha_cuda/hopper_fwd.cuh) on its own,
// without building the library: fp16 and bf16, head dim 64 and 128, causal and not, against float64
// on the CPU (also at a seq that is not a multiple of the tile), then timed at B=4, H=16.
// Build: nvcc -gencode=arch=compute_90a,code=sm_90a -O3 -std=c++17 -I../src/main/include -I../src/main/headers \
//          -o fwd_sm90_check fwd_sm90_check.cu
#include <string>

#include "harness.cuh"
#include "mha_cuda/hopper_fwd.cuh"

template <typename T, int D> static void launch(bool causal, const T *q, const T *k, const T *v, T *o, int b, int h,
                                                int seq) {
  const mha::cuda::FwdParams params{q, k, v, o, nullptr, b, h, seq, 1.f / std::sqrt(static_cast<float>(D))};
  cudaError_t status = cudaSuccess;
  const bool ran = causal ? mha::cuda::sm90::try_launch_fwd<T, D, true>(params, nullptr, &status)
                          : mha::cuda::sm90::try_launch_fwd<T, D, false>(params, nullptr, &status);
  if (!ran || status != cudaSuccess) {
    printf("the sm_90a forward did not run (%s)\n", ran ? cudaGetErrorString(status) : "not usable on this device");
    exit(1);
  }
}

template <typename T, int D> static bool check_and_time(bool check_only) {
  const Launch<T> run = launch<T, D>;
  const double tolerance = std::is_same<T, __half>::value ? 2e-3 : 1e-2;
  bool ok = check_against_cpu<T>(run, D, 384, tolerance);
  ok &= check_against_cpu<T>(run, D, 200, tolerance);  // ragged: a partial tile, zero-filled rows
  if (!check_only) time_launches<T>(run, D, {1024, 4096, 8192, 16384});
  return ok;
}

int main(int argc, char **argv) {
  const bool check_only = argc > 1 && std::string(argv[1]) == "check";  // for compute-sanitizer
  bool ok = check_and_time<__half, 128>(check_only);
  ok &= check_and_time<__nv_bfloat16, 128>(check_only);
  ok &= check_and_time<__half, 64>(check_only);
  ok &= check_and_time<__nv_bfloat16, 64>(check_only);
  printf("%s\n", ok ? "ALL CHECKS PASSED" : "SOME CHECKS FAILED");
  return ok ? 0 : 1;
}
