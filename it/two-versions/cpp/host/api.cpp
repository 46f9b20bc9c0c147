// The public C++ API of kvpp (exported as _ZN4kvpp*). report() calls version(), another exported
// function, and the private archive calls version() too.
#include <stdexcept>

namespace kvpp {
namespace detail {
int kernel();
}

int version() { return VER; }

int report() {
  try {
    return version() * 100 + detail::kernel();
  } catch (const std::exception &) {
    return -1;
  }
}
}  // namespace kvpp
