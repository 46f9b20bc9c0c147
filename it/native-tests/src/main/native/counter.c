/* The library under test: one exported function. */
int counter_next(int value) { return value + 1; }
