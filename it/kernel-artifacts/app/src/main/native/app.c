#include "aiter.h" /* from aiter-kernels, which came with te-core */
#include "te.h"
int app_run(int x) { return te_forward(x) + aiter_tile(x); }
