#define ONLY_A 2
