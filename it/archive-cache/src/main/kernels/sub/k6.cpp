#include "tile.h"
int k6(void) { return TILE * 6; }
