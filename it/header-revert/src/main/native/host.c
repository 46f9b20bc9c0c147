#include "value.h"
int rev_api(void);
int rev_value(void) { return REV_VALUE * 10 + rev_api(); }
