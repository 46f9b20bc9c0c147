/* The library's API: forwards to its own kernels (or, in the plain layout, to whichever copy wins). */
int kernel_answer(void);
int kernel_statics(void);
__attribute__((visibility("default"))) int API_NAME(void) { return kernel_answer() + kernel_statics(); }
