#ifndef OLDSYS_H
#define OLDSYS_H
#ifdef __cplusplus
extern "C" {
#endif
/* Writes a report of what worked into out; 0 on success. */
int oldsys_report(const char *directory, char *out, int size);
#ifdef __cplusplus
}
#endif
#endif
