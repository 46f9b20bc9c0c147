/* A private kernel that calls back into the API: its call must reach this library's kv_version. */
int kv_version(void);

int kv_kernel(void) { return kv_version() * 10; }
