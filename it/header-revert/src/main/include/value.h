#define REV_VALUE 1
