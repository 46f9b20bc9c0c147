int dev_version(void) { return 1; }
