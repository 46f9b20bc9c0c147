int t_kernel_tile(void);
int api_tile(void) { return t_kernel_tile(); }
