#include "p.h"
int c_answer(void) { return p_answer() * 10; }
