#ifndef SUM_H
#define SUM_H
#ifdef __cplusplus
extern "C" {
#endif
/* Sums sqrt(i) for i in [0, n) on four threads; -1 for a negative n (thrown and caught inside). */
double sum_roots(long n);
/* The machine the library was built for: "x86_64" or "aarch64". */
const char *sum_machine(void);
#ifdef __cplusplus
}
#endif
#endif
