int d() { return 4; }
