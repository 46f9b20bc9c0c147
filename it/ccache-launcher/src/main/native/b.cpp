#include <vector>
int b() { std::vector<int> v(3, 1); return v[0]; }
