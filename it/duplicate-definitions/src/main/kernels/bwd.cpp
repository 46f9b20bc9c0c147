#include "device_state.h"
#include "layernorm.h"
int bwd_pe() { return device_state_d.pe + 2; }
