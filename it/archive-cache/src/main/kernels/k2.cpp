#include "tile.h"
int k2(void) { return TILE * 2; }
