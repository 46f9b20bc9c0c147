#include "mixed.h"
extern "C" int from_cpp(void) { return 10; }
