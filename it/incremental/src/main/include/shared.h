#define SHARED 1
