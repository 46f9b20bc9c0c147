#include "shared.h"
#include "only_a.h"
int a(void) { return SHARED + ONLY_A + MODE; }
