/* Linked against one build of kv. It first dlopens another build (argv[1], RTLD_GLOBAL, when given),
   then calls kv_report() through its own link, and the other build's through dlsym. */
#include <dlfcn.h>
#include <stdio.h>
int kv_report(void);
int main(int argc, char **argv) {
  if (argc > 1) {
    void *other = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
    if (!other) { fprintf(stderr, "%s\n", dlerror()); return 1; }
    int (*report)(void) = (int (*)(void))dlsym(other, "kv_report");
    printf("linked=%d other=%d\n", kv_report(), report());
    return 0;
  }
  printf("linked=%d\n", kv_report());
  return 0;
}
