#include "tile.h"
int k4(void) { return TILE * 4; }
