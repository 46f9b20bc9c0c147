int kernel_c(void) { return 3; }
