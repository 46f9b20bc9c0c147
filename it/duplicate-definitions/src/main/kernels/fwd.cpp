#include "device_state.h"
#include "layernorm.h"
int fwd_pe() { return device_state_d.pe + 1; }
