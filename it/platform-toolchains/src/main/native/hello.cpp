#include "hello.h"
#include <string>

static const std::string machine =
#if defined(__aarch64__)
    "aarch64";
#elif defined(__x86_64__)
    "x86_64";
#else
    "other";
#endif

extern "C" const char *hello_machine(void) { return machine.c_str(); }
