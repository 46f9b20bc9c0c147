/* A kernel: private to the library (only tiles_* is exported). */
int scale_tile(int x) { return 3 * x; }
