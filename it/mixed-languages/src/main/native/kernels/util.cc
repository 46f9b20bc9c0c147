#include "mixed.h"
extern "C" int from_cc(void) { return 100; }
