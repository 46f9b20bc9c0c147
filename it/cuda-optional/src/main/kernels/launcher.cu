// Compiled only where nvcc is: a kernel and its host-side launcher.
__global__ void touch(int *value) { *value = 1; }

extern "C" int cuda_launcher_answer(void) { return 42; }
