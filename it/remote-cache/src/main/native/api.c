int kernel_a(void);
int kernel_b(void);
int kernel_c(void);
int kernel_d(void);

__attribute__((visibility("default"))) int remote_answer(void) {
  return kernel_a() + kernel_b() + kernel_c() + kernel_d();
}
