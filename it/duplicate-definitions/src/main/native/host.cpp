#include "device_state.h"
int host_pe() { return device_state_d.pe; }
