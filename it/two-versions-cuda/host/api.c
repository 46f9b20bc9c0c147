/* The public API. Calls between exported functions (kvcu_launch_target -> kvcu_kernel,
   kvcu_report -> kvcu_version) and from the archive (-> kvcu_version) must stay in this library. */
const void *kvcu_detail_kernel(void);
int kvcu_detail_launch(int *result);

int kvcu_version(void) { return VER; }

const void *kvcu_kernel(void) { return kvcu_detail_kernel(); }

const void *kvcu_launch_target(void) { return kvcu_kernel(); }

/* Launches the kernel: version * 100 + what the device wrote (version * 10), or -1 on a CUDA error. */
int kvcu_report(void) {
  int written = 0;
  if (kvcu_detail_launch(&written) != 0) {
    return -1;
  }
  return kvcu_version() * 100 + written;
}
