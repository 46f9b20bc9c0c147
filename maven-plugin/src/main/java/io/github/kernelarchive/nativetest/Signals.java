package io.github.kernelarchive.nativetest;

/** Names of the Linux signals a failing test program is most often killed by. */
final class Signals {
  private static final String[] NAMES = {null, "SIGHUP", "SIGINT", "SIGQUIT", "SIGILL", "SIGTRAP", "SIGABRT", "SIGBUS",
      "SIGFPE", "SIGKILL", "SIGUSR1", "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM", "SIGTERM"};

  private Signals() {}

  static String name(int signal) {
    return signal > 0 && signal < NAMES.length ? NAMES[signal] : Integer.toString(signal);
  }
}
