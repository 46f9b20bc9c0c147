#include <cstdio>
extern "C" int counter_next(int value);
extern "C" void expect(int ok, const char *what);

int main() {
  std::printf("checking the counter\n");
  expect(counter_next(1) == 3, "counter_next(1) is 3");
  return 0;
}
