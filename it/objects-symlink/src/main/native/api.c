int obj_a(void);
int obj_b(void);
int obj_c(void);

int linked_sum(void) { return obj_a() + obj_b() + obj_c(); }
