/* Compiled into every test program: a check that names what failed. */
#include <stdio.h>
#include <stdlib.h>

void expect(int ok, const char *what) {
  if (!ok) {
    fprintf(stderr, "FAILED: %s\n", what);
    exit(3);
  }
  printf("ok: %s\n", what);
}
