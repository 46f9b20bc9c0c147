#include "hdr @1.h"
int quoted(void) { return 1; }
