/* Calls the library through its export and checks every part of the report. */
#include <stdio.h>
#include <string.h>
#include "oldsys.h"

int main(void) {
  char out[256];
  if (oldsys_report("target/report-dir", out, sizeof out) != 0) return 1;
  printf("%s\n", out);
  return strcmp(out, "tls=1 fs=1 caught=thrown dlopen=1 pow=1025.0") == 0 ? 0 : 2;
}
