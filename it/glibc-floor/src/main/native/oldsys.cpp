#include "oldsys.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <thread>

namespace {
int destroyed = 0;
struct Tracked {
  ~Tracked() { ++destroyed; }
};
[[noreturn]] __attribute__((noinline)) void fail() { throw std::runtime_error("thrown"); }
}  // namespace

extern "C" int oldsys_report(const char *directory, char *out, int size) {
  std::string report;
  std::thread worker([] { thread_local Tracked tracked; (void) tracked; });
  worker.join();
  report += "tls=" + std::to_string(destroyed);
  std::filesystem::create_directories(std::filesystem::path(directory) / "made");
  report += " fs=" + std::to_string(std::filesystem::exists(std::filesystem::path(directory) / "made"));
  try {
    fail();
  } catch (const std::exception &e) {
    report += std::string(" caught=") + e.what();
  }
  void *libm = dlopen("libm.so.6", RTLD_NOW);
  report += " dlopen=" + std::to_string(libm != nullptr);
  char number[32];
  std::snprintf(number, sizeof number, " pow=%.1f", std::pow(2.0, 10.0) + std::exp(0.0) + std::log(1.0));
  report += number;
  if (static_cast<int>(report.size()) >= size) return -1;
  std::memcpy(out, report.c_str(), report.size() + 1);
  return 0;
}
