int p_api(void) { return 1; }
