#include <math.h>

/* Twice the argument plus two, through exp(log(x)): so that the library needs exp@GLIBC_2.29. */
int answer(int x) { return (int)lround(exp(log((double)x))) * 2 + 2; }
