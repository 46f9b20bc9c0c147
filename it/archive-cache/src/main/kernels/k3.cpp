int k3(void) { return 3; }
