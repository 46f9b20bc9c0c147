#include <stdlib.h>
int counter_next(int value);
void expect(int ok, const char *what);

int main(void) {
  /* The environment from <testEnvironment> reaches the program. */
  const char *start = getenv("COUNTER_START");
  expect(start != NULL && counter_next(atoi(start)) == 41, "counter_next(COUNTER_START) is 41");
  return 0;
}
