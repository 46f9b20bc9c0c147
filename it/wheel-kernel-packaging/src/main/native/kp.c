int kp_triple(int x) { return 3 * x; }
