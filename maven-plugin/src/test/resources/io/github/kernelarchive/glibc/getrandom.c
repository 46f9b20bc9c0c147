#include <sys/random.h>
int seed(void) {
  unsigned value = 0;
  return getrandom(&value, sizeof value, 0) == sizeof value ? (int) value : -1;
}
