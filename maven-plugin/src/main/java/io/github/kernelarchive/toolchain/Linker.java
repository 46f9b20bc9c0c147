package io.github.kernelarchive.toolchain;

import java.util.List;

/**
 * The linker the C++ driver runs for the final link.
 *
 * @param name what the log and the link key call it ({@code mold}, {@code lld}, {@code gold},
 *     {@code bfd}, or {@code default}: whatever the driver runs without {@code -fuse-ld})
 * @param driverFlags flags for the C++ driver that select it ({@code -fuse-ld=mold})
 * @param identity path and {@code --version} of the linker: part of the link key
 */
public record Linker(String name, List<String> driverFlags, String identity) {
  public Linker {
    driverFlags = List.copyOf(driverFlags);
  }
}
