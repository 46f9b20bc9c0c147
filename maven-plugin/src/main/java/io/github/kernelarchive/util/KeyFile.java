package io.github.kernelarchive.util;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The key an output was last produced with, stored beside it: a step is skipped when its output
 * exists and the key of its inputs is unchanged.
 */
public final class KeyFile {
  private KeyFile() {}

  /** True when {@code output} exists and {@code keyFile} holds exactly {@code key}. */
  public static boolean upToDate(Path output, Path keyFile, String key) {
    try {
      return Files.isRegularFile(output) && Files.readString(keyFile, StandardCharsets.UTF_8).equals(key);
    } catch (IOException e) {
      return false;
    }
  }

  /** Records {@code key} after the output was published. */
  public static void record(Path keyFile, String key) throws IOException {
    AtomicFiles.write(keyFile, key.getBytes(StandardCharsets.UTF_8));
  }
}
