// Like NVSHMEM's device-state header once did: a definition, not a declaration, in host code.
#pragma once
struct device_state { int pe; };
device_state device_state_d;
