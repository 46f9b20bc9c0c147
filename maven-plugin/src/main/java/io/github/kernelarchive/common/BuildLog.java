package io.github.kernelarchive.common;

/** Where the engine reports; the Mojo routes it to Maven's log, tests collect it. */
public interface BuildLog {
  void info(String message);

  void warn(String message);

  void error(String message);

  void debug(String message);
}
