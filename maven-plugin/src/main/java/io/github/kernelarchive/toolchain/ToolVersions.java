package io.github.kernelarchive.toolchain;

import io.github.kernelarchive.util.AtomicFiles;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.List;
import java.util.Properties;
import java.util.TreeMap;

/**
 * Each tool's {@code --version} output, asked once and then remembered by the executable's real
 * path, size and modification time: a build of an unchanged tree asks no tool again (nvcc takes
 * about 0.1 s to answer). A changed or replaced executable is asked anew. Kept in the build's state
 * folder; without one, within the build only.
 */
public final class ToolVersions {
  private final Path file;
  private final TreeMap<String, String> known = new TreeMap<>();
  private boolean changed;

  /** @param file where they are kept between builds; null keeps nothing */
  public ToolVersions(Path file) {
    this.file = file;
    if (file != null && Files.isRegularFile(file)) {
      Properties properties = new Properties();
      try (InputStream in = Files.newInputStream(file)) {
        properties.load(in);
        properties.stringPropertyNames().forEach(k -> known.put(k, properties.getProperty(k)));
      } catch (IOException | IllegalArgumentException e) {
        known.clear(); // unreadable: ask again, and write it anew
      }
    }
  }

  /** What {@code executable --version} prints, with its exit status; run only when not remembered. */
  public synchronized ProcessResult version(Path executable, ProcessRunner runner) throws IOException {
    String key = key(executable);
    String remembered = key == null ? null : known.get(key);
    if (remembered != null) {
      return new ProcessResult(0, remembered);
    }
    ProcessResult result = runner.run(List.of(executable.toString(), "--version"), null);
    if (result.succeeded() && key != null) {
      known.put(key, result.output());
      changed = true;
    }
    return result;
  }

  /** Writes what was learnt, if anything was. */
  public synchronized void save() throws IOException {
    if (file == null || !changed) {
      return;
    }
    Properties properties = new Properties();
    properties.putAll(known);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    properties.store(out, "kernel-archive: each tool's --version, by real path, size and modification time");
    Files.createDirectories(file.getParent());
    AtomicFiles.write(file, out.toByteArray());
    changed = false;
  }

  private static String key(Path executable) {
    try {
      Path real = executable.toRealPath();
      BasicFileAttributes attributes = Files.readAttributes(real, BasicFileAttributes.class);
      return real + "|" + attributes.size() + "|" + attributes.lastModifiedTime().toMillis();
    } catch (IOException e) {
      return null;
    }
  }
}
