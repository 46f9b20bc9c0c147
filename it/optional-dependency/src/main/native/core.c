__attribute__((visibility("default"))) int opt_answer(void) { return 42; }
