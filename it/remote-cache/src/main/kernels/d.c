int kernel_d(void) { return 4; }
