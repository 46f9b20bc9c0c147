/* Loads a library built by the test, calls its probe() and prints what it wrote. */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv) {
  if (argc != 3) return 2;
  void *library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    printf("dlopen: %s\n", dlerror());
    return 1;
  }
  int (*probe)(const char *, char *, int) = (int (*)(const char *, char *, int)) dlsym(library, "probe");
  char out[512];
  if (!probe || probe(argv[2], out, sizeof out) != 0) return 3;
  printf("%s\n", out);
  return 0;
}
