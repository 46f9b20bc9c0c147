#include "value.h"
int rev_api(void) { return REV_VALUE; }
