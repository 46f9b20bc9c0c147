int fine() { return 1; }
