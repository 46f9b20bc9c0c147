#include <map>
#include <string>

namespace {
std::map<std::string, unsigned long> sizes() {
  std::map<std::string, unsigned long> m;
  for (unsigned long i = 1; i <= 3; ++i) {
    m["tile" + std::to_string(i * 64)] = i * 64;
  }
  return m;
}
}  // namespace

extern "C" unsigned long cxx_total(void) {
  unsigned long total = 0;
  for (const auto& [name, size] : sizes()) {
    total += size + name.size();
  }
  return total;
}
