#include "hdr @1.h"
extern "C" int at_start() { return 1; }
