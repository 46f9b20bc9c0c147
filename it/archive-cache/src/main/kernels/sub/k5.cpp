int k5(void) { return 5; }
