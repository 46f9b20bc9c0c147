package io.github.kernelarchive.toolchain;

import java.nio.file.Path;

/**
 * A resolved executable.
 *
 * @param executable absolute path
 * @param identity the real path plus the tool's {@code --version} text: part of every compile key,
 *     so upgrading the compiler rebuilds everything it compiled
 */
public record Tool(Path executable, String identity) {
  public String command() {
    return executable.toString();
  }
}
