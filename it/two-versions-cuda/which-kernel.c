/* Loads two builds of libkvcu RTLD_GLOBAL in the order given and prints, for each, the library
   holding the kernel its API would launch (dladdr of kvcu_launch_target()). With --launch first
   (on a GPU) it also launches: kvcu_report() answers 110 from build 1.0 and 220 from 2.0.
   usage: which-kernel [--launch] <first.so> <second.so> */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv) {
  int launch = argc > 1 && strcmp(argv[1], "--launch") == 0;
  if (argc != 3 + launch) return 2;
  void *handles[2];
  for (int i = 0; i < 2; i++) {
    handles[i] = dlopen(argv[1 + launch + i], RTLD_NOW | RTLD_GLOBAL);
    if (!handles[i]) { fprintf(stderr, "%s\n", dlerror()); return 1; }
  }
  for (int i = 0; i < 2; i++) {
    const void *(*target)(void) = (const void *(*)(void))dlsym(handles[i], "kvcu_launch_target");
    int (*version)(void) = (int (*)(void))dlsym(handles[i], "kvcu_version");
    Dl_info info;
    if (!target || !version || !dladdr(target(), &info)) { fprintf(stderr, "no kvcu API\n"); return 1; }
    printf("%s%d:%s", i ? " " : "", version(), strcmp(info.dli_fname, argv[1 + launch + i]) == 0 ? "own" : info.dli_fname);
    if (launch) {
      int (*report)(void) = (int (*)(void))dlsym(handles[i], "kvcu_report");
      printf(":%d", report());
    }
  }
  printf("\n");
  return 0;
}
