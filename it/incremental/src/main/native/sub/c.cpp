int c() { return 3; }
