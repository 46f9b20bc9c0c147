#include <kanotinstalled.h>
int uses_comm(void) { return kanotinstalled_pe(); }
