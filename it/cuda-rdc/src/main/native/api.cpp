extern "C" void launch_scale(int *p);
extern "C" __attribute__((visibility("default"))) void rdc_scale(int *device_pointer) { launch_scale(device_pointer); }
