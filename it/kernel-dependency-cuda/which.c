/* On a GPU: app_run(20) through app's kernel and dev-lib's device function prints 41. */
#include <stdio.h>
int app_run(int x);
int main(void) { printf("%d\n", app_run(20)); return 0; }
