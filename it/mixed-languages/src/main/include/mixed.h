#pragma once
#define MIXED_API __attribute__((visibility("default")))
#ifdef __cplusplus
extern "C" {
#endif
int from_c(void);
int from_cpp(void);
int from_cc(void);
int from_fwd_a(void);
int from_fwd_b(void);
int from_cuda(void); /* returns 1000 when the CUDA object is linked */
MIXED_API int mixed_sum(void);
#ifdef __cplusplus
}
#endif
