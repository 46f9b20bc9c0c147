#ifndef HELLO_H
#define HELLO_H
#ifdef __cplusplus
extern "C" {
#endif
/* The machine this library was compiled for. */
const char *hello_machine(void);
#ifdef __cplusplus
}
#endif
#endif
