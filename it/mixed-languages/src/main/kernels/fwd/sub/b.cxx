#include "mixed.h"
extern "C" int from_fwd_b(void) { return 100000; }
