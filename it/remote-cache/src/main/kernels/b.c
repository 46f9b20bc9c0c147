int kernel_b(void) { return 2; }
