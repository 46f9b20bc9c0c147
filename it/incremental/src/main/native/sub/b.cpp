#include "shared.h"
int b() { return SHARED; }
