package io.github.kernelarchive.compile;

import io.github.kernelarchive.util.AtomicFiles;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Makes nvcc's objects depend on their inputs only. nvcc compiles the host side from a temporary
 * file named {@code tmpxft_<pid>_00000000-6_<source>.cudafe1.cpp}, and that name reaches the
 * object (the host compiler's FILE symbol; with {@code -g}, its debug info too), so two compiles of
 * one source differ in those 8 hex digits of a process id and nowhere else (measured with nvcc 13.0,
 * with and without {@code -rdc} and {@code -g}). Writing zeros there, length unchanged, makes the
 * object the same wherever and whenever it was compiled: here, on a cluster node, on a CI runner.
 */
final class NvccObjects {
  private static final byte[] MARK = "tmpxft_".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
  private static final int DIGITS = 8;

  private NvccObjects() {}

  /** Rewrites {@code object} with every {@code tmpxft_<8 hex digits>_} made {@code tmpxft_00000000_}. */
  static void normalize(Path object) throws IOException {
    byte[] bytes = Files.readAllBytes(object);
    if (normalize(bytes)) {
      AtomicFiles.write(object, bytes);
    }
  }

  /** In place; whether anything changed. */
  static boolean normalize(byte[] bytes) {
    boolean changed = false;
    for (int at = indexOf(bytes, 0); at >= 0; at = indexOf(bytes, at + 1)) {
      int digits = at + MARK.length;
      if (digits + DIGITS >= bytes.length || bytes[digits + DIGITS] != '_') {
        continue;
      }
      boolean hex = true;
      for (int i = digits; i < digits + DIGITS && hex; i++) {
        hex = Character.digit(bytes[i], 16) >= 0;
      }
      for (int i = digits; i < digits + DIGITS && hex; i++) {
        changed |= bytes[i] != '0';
        bytes[i] = '0';
      }
    }
    return changed;
  }

  private static int indexOf(byte[] bytes, int from) {
    outer:
    for (int i = from; i <= bytes.length - MARK.length; i++) {
      for (int j = 0; j < MARK.length; j++) {
        if (bytes[i + j] != MARK[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}
