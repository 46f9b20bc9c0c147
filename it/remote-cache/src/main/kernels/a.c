int kernel_a(void) { return 1; }
