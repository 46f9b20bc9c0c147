// Uses what the issue lists for an older glibc: std::thread, std::filesystem, std::string,
// exceptions, dlopen, pthread_cond_wait, exp, log, pow, memcpy and fmemopen, and a thread_local
// with a destructor (__cxa_thread_atexit_impl, 2.18). Writes what it saw.
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <dlfcn.h>
#include <filesystem>
#include <pthread.h>
#include <stdexcept>
#include <string>
#include <sys/stat.h>
#include <thread>

namespace {
pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
int ready = 0;
std::atomic<int> destroyed{0};

struct Counted {
  int value = 7;
  ~Counted() { ++destroyed; }
};

void* signal_ready(void*) {
  pthread_mutex_lock(&mutex);
  ready = 1;
  pthread_cond_signal(&changed);
  pthread_mutex_unlock(&mutex);
  return nullptr;
}

[[noreturn]] __attribute__((noinline)) void fail(const std::string& why) { throw std::runtime_error(why); }
}  // namespace

extern "C" int probe(const char* directory, char* out, int size) {
  std::string report;
  int counted = 0;
  std::thread worker([&] {
    thread_local Counted local;
    counted = local.value;
  });
  worker.join();
  report += "thread=" + std::to_string(counted) + " tls_dtor=" + std::to_string(destroyed.load());

  std::filesystem::path dir(directory);
  std::filesystem::create_directories(dir / "sub");
  report += " fs=" + std::to_string(std::filesystem::is_directory(dir / "sub"));
  struct stat info;
  report += " stat=" + std::to_string(stat(directory, &info) == 0 && S_ISDIR(info.st_mode));

  try {
    fail("boom");
  } catch (const std::exception& e) {
    report += std::string(" caught=") + e.what();
  }

  void* libm = dlopen("libm.so.6", RTLD_NOW);
  auto cosine = libm ? reinterpret_cast<double (*)(double)>(dlsym(libm, "cos")) : nullptr;
  report += " dlopen=" + std::to_string(cosine != nullptr && cosine(0.0) == 1.0);
  if (libm) dlclose(libm);

  pthread_t thread;
  pthread_create(&thread, nullptr, signal_ready, nullptr);
  pthread_mutex_lock(&mutex);
  while (!ready) pthread_cond_wait(&changed, &mutex);
  pthread_mutex_unlock(&mutex);
  pthread_join(thread, nullptr);
  report += " cond=" + std::to_string(ready);

  volatile double x = 2.0;
  char number[64];
  std::snprintf(number, sizeof number, " math=%.6f", std::exp(x) + std::log(x) + std::pow(x, 10.0));
  report += number;

  char text[16];
  std::memcpy(text, "hello", 6);
  FILE* memory = fmemopen(text, 5, "r");
  char read[8] = {0};
  if (memory) {
    std::fread(read, 1, 5, memory);
    std::fclose(memory);
  }
  report += std::string(" fmemopen=") + read;

  if (static_cast<int>(report.size()) >= size) return -1;
  std::memcpy(out, report.c_str(), report.size() + 1);
  return 0;
}
