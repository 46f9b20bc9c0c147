int scale_tile(int x);
int tiles_scale(int x) { return scale_tile(x); }
