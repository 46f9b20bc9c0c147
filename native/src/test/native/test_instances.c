/*
 * The checked-in kernel instances are exactly what their generator writes: an edited generator
 * without regenerated instances (or the reverse) fails here. MHA_SOURCES is src/main (the pom sets it).
 */
#include <stdio.h>
#include <stdlib.h>

int main(void) {
  const char *sources = getenv("MHA_SOURCES");
  if (sources == NULL) {
    fprintf(stderr, "MHA_SOURCES is not set: the pom's <testEnvironment> names src/main\n");
    return 1;
  }
  char command[4096];
  snprintf(command, sizeof command, "'%s/kernels/generate-instances.sh' --check", sources);
  int status = system(command);
  printf("%s: status %d\n", command, status);
  return status == 0 ? 0 : 1;
}
