#include <stdio.h>
#include <stdlib.h>
long sums_total(const int *values, int count);

int main(void) {
  int *values = malloc(8 * sizeof(int));
  for (int i = 0; i < 8; i++) {
    values[i] = i;
  }
  long total = sums_total(values, 8);
  printf("sum of 0..7 (and whatever lies past them): %ld\n", total);
  free(values);
  return 0;
}
