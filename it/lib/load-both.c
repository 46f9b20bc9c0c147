/* Loads two libraries RTLD_GLOBAL, in the order given, and prints each one's answer.
   usage: load-both <first.so> <symbol> <second.so> <symbol> */
#include <dlfcn.h>
#include <stdio.h>
int main(int argc, char **argv) {
  if (argc != 5) return 2;
  void *first = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
  void *second = dlopen(argv[3], RTLD_NOW | RTLD_GLOBAL);
  if (!first || !second) { fprintf(stderr, "%s\n", dlerror()); return 1; }
  int (*a)(void) = (int (*)(void))dlsym(first, argv[2]);
  int (*b)(void) = (int (*)(void))dlsym(second, argv[4]);
  if (!a || !b) { fprintf(stderr, "%s\n", dlerror()); return 1; }
  printf("%s=%d %s=%d\n", argv[2], a(), argv[4], b());
  return 0;
}
