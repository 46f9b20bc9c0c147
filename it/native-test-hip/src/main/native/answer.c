int answer_value(void) { return 42; }
