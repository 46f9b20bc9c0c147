#include <hip/hip_runtime.h>
#include <cstdio>
extern "C" int answer_value(void);

__global__ void write_answer(int *out) { *out = 42; }

int main() {
  if (answer_value() != 42) {
    std::fprintf(stderr, "answer_value() is %d\n", answer_value());
    return 1;
  }
  int devices = 0;
  hipError_t status = hipGetDeviceCount(&devices);
  if (status != hipSuccess || devices == 0) {
    std::fprintf(stderr, "no AMD GPU visible (%s)\n", status != hipSuccess ? hipGetErrorString(status) : "0 devices");
    return 77;
  }
  return 0;
}
