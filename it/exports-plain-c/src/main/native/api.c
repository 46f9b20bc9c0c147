/* Existing C code: no visibility attributes anywhere. <exports> alone says what the API is. */
int helper_scale(int x) { return 2 * x; }

int t_api(void) { return helper_scale(21); }
