/* The public API of kv. kv_report calls another exported function, and the private kernel does too. */
int kv_kernel(void);

int kv_version(void) { return VER; }

int kv_report(void) { return kv_version() * 100 + kv_kernel(); }
