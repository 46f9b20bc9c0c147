#include <stdio.h>

int main(void) {
  fprintf(stderr, "looking for a GPU\n");
  fprintf(stderr, "no GPU on this machine\n");
  return 77;
}
