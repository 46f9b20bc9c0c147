#include "mixed.h"
int from_c(void) { return 1; }
MIXED_API int mixed_sum(void) { return from_c() + from_cpp() + from_cc() + from_fwd_a() + from_fwd_b(); }
