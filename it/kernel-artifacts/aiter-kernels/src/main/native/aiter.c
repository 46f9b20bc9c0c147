#include "aiter.h"
int aiter_tile_kernel(int x);
int aiter_tile(int x) { return aiter_tile_kernel(x); }
