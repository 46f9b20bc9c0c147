int t_kernel_tile(void) { return 7; }
