#include "sum.h"
#include <cmath>
#include <stdexcept>
#include <thread>
#include <vector>

namespace {
double part(long from, long to) {
  if (from < 0) {
    throw std::invalid_argument("negative");
  }
  double s = 0;
  for (long i = from; i < to; i++) {
    s += std::sqrt(static_cast<double>(i));
  }
  return s;
}
}  // namespace

extern "C" double sum_roots(long n) {
  try {
    if (n < 0) {
      part(-1, 0);
    }
    std::vector<double> parts(4);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; t++) {
      threads.emplace_back([&, t] { parts[t] = part(n * t / 4, n * (t + 1) / 4); });
    }
    for (auto &thread : threads) {
      thread.join();
    }
    return parts[0] + parts[1] + parts[2] + parts[3];
  } catch (const std::invalid_argument &) {
    return -1;
  }
}

extern "C" const char *sum_machine(void) {
#if defined(__aarch64__)
  return "aarch64";
#elif defined(__x86_64__)
  return "x86_64";
#else
  return "other";
#endif
}
