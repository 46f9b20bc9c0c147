#include "value.h"
int rev_other(void) { return REV_VALUE + 100; }
int rev_api2(void) { return rev_other(); }
