#define ODD_BASE 40
#define API __attribute__((visibility("default")))
