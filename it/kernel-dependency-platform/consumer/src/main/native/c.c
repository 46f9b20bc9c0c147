int p_api(void);
int c_api(void) { return p_api(); }
