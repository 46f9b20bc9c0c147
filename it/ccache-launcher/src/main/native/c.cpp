#include <string>
int c() { return (int)std::string("abc").size(); }
