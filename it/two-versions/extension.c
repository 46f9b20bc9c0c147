/* A plugin linked against one build of kv, loaded by a host that already holds another build. */
int kv_report(void);
int extension_answer(void) { return kv_report(); }
