#include "dev.cuh"
__device__ int dep_twice(int x) { return 2 * x; }
