/* The same symbol in both copies, with a different answer. */
int kernel_answer(void) { return VARIANT * 100; }
