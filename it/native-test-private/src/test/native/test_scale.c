#include <stdio.h>
int tiles_scale(int x);
int scale_tile(int x);

int main(void) {
  printf("tiles_scale(2)=%d scale_tile(2)=%d\n", tiles_scale(2), scale_tile(2));
  return tiles_scale(2) == 6 && scale_tile(2) == 6 ? 0 : 1;
}
