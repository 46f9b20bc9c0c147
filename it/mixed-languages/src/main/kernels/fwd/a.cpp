#include "mixed.h"
extern "C" int from_fwd_a(void) { return 10000; }
