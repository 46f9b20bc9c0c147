int aiter_prebuilt_scale(int x);
int aiter_tile_kernel(int x) { return aiter_prebuilt_scale(x) + 1; }
