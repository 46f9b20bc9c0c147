#include "mixed.h"
__global__ void fill(int *x) { *x = 1000; }
extern "C" int from_cuda(void) { return 1000; }
