#include "hdr @1.h"
extern "C" int quoted(void);
extern "C" int at_start();
extern "C" API int odd_answer() { return ODD_BASE + quoted() + at_start(); }
