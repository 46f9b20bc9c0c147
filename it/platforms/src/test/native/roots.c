#include <math.h>
#include <stdio.h>
#include "sum.h"

int main(void) {
  double expected = 0;
  for (long i = 0; i < 1000; i++) {
    expected += sqrt((double) i);
  }
  double got = sum_roots(1000);
  printf("machine=%s sum=%.6f expected=%.6f negative=%.0f\n", sum_machine(), got, expected, sum_roots(-5));
  return fabs(got - expected) < 1e-6 && sum_roots(-5) == -1 ? 0 : 1;
}
