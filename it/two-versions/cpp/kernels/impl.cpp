// The private implementation: a template, std::map and std::string, and an exception thrown and
// caught inside the archive. Its call to the exported kvpp::version() must stay in this library.
#include <map>
#include <stdexcept>
#include <string>

namespace kvpp {
int version();

namespace detail {
struct missing : std::runtime_error {
  using std::runtime_error::runtime_error;
};

template <typename T>
T scaled(T value, int factor) {
  return value * factor;
}

int kernel() {
  std::map<std::string, int> table{{"one", 1}};
  int found;
  try {
    auto entry = table.find("version");
    if (entry == table.end()) {
      throw missing("version");
    }
    found = entry->second;
  } catch (const missing &e) {
    table[e.what()] = version();
    found = table.at("version");
  }
  return scaled(found, 10);
}
}  // namespace detail
}  // namespace kvpp
