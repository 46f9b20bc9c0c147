#include <stdlib.h>
#include <unistd.h>

int main(void) {
  /* A child of its own, which the timeout must kill with the program. */
  if (fork() == 0) {
    execlp("sleep", "sleep", "4321", (char *) NULL);
    _exit(127);
  }
  for (;;) {
    pause();
  }
}
