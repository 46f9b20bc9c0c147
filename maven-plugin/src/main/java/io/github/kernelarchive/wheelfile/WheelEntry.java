package io.github.kernelarchive.wheelfile;

import java.nio.file.Path;

/**
 * One file of a wheel: its path inside the archive ({@code mha/libmha.so}), its content from a file
 * or from bytes, and whether it is executable (mode 0755, else 0644).
 */
public record WheelEntry(String name, Path source, byte[] bytes, boolean executable) {
  public WheelEntry {
    if (name.isEmpty() || name.startsWith("/") || name.contains("\\") || name.endsWith("/")
        || java.util.List.of(name.split("/")).stream().anyMatch(p -> p.isEmpty() || p.equals(".") || p.equals(".."))) {
      throw new IllegalArgumentException("not a relative wheel path: '" + name + "'");
    }
  }

  public static WheelEntry file(String name, Path source, boolean executable) {
    return new WheelEntry(name, source, null, executable);
  }

  public static WheelEntry text(String name, String content) {
    return new WheelEntry(name, null, content.getBytes(java.nio.charset.StandardCharsets.UTF_8), false);
  }
}
