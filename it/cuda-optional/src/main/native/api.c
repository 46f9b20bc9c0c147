/* Answers whether the CUDA part was compiled in; the launcher is optional at link time. */
__attribute__((weak, visibility("hidden"))) int cuda_launcher_answer(void);

__attribute__((visibility("default"))) int optional_cuda_answer(void) { return cuda_launcher_answer ? cuda_launcher_answer() : -1; }
