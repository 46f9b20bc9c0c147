int k1(void) { return 1; }
