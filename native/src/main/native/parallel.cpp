// A fork-join loop for the CPU backends: threads take item indices from a shared counter, so
// uneven items (causal rows) balance themselves.
#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <thread>
#include <vector>

#include "mha_internal.h"

namespace mha {
namespace {

unsigned thread_count() {
  if (const char *configured = std::getenv("MHA_NUM_THREADS")) {
    const long n = std::strtol(configured, nullptr, 10);
    if (n > 0) return static_cast<unsigned>(n);
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

}  // namespace

void parallel_for(std::size_t n, void (*fn)(std::size_t, void *), void *context) {
  const std::size_t threads = std::min<std::size_t>(thread_count(), n);
  if (threads <= 1) {
    for (std::size_t i = 0; i < n; ++i) fn(i, context);
    return;
  }
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < n;) fn(i, context);
  };
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  for (std::size_t t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (auto &thread : pool) thread.join();
}

}  // namespace mha
