/* Off by one: reads values[count], one past the end. */
long sums_total(const int *values, int count) {
  long total = 0;
  for (int i = 0; i <= count; i++) {
    total += values[i];
  }
  return total;
}
