/* The exported API calls into the prebuilt archive, whose own symbols stay private. */
int dup_a(void);
int dup_b(void);
int odd_space(void);
int odd_quote(void);
int odd_backslash(void);
int odd_at(void);
__attribute__((visibility("default"))) int pre_sum(void) {
  return dup_a() + dup_b() + odd_space() + odd_quote() + odd_backslash() + odd_at();
}
