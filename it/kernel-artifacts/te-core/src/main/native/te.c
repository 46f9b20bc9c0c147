#include "aiter.h" /* from the aiter-kernels dependency */
#include "te.h"
int te_forward(int x) { return aiter_tile(x) * 10; }
