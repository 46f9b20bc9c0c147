#include "device_state.h"
int bwd_pe() { return device_state_d.pe + 2; }
