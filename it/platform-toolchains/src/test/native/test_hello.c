#include <stdio.h>
#include <string.h>
#include "hello.h"

/* Prints the machine and, under qemu, the marker of the sysroot qemu was given (-L): found there
   as /vendor-marker. Fails when the library and the program disagree on the machine. */
int main(void) {
#if defined(__aarch64__)
  const char *expected = "aarch64";
#else
  const char *expected = "x86_64";
#endif
  char marker[64] = "none";
  FILE *file = fopen("/vendor-marker", "r");
  if (file != NULL) {
    if (fgets(marker, sizeof marker, file) == NULL) {
      strcpy(marker, "unreadable");
    }
    marker[strcspn(marker, "\n")] = '\0';
    fclose(file);
  }
  printf("machine=%s sysroot=%s\n", hello_machine(), marker);
  return strcmp(hello_machine(), expected) == 0 ? 0 : 1;
}
