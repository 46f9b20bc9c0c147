package io.github.kernelarchive.bundle;

import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * {@code kernel.properties}, the part of a kernel bundle a consumer reads before it links: what
 * the bundle holds and what linking it takes. Properties rather than JSON: the JDK reads them,
 * and lists become numbered keys ({@code archives.0}, {@code archives.1}).
 *
 * @param format {@link #FORMAT}; a consumer refuses a format it does not know
 * @param platform the classifier of the platform the objects were built for, e.g. {@code linux-x86_64}
 * @param library {@code te} for {@code libte.so}
 * @param soname the shared library's SONAME
 * @param symbolVersion the version node of its exports
 * @param exports the export patterns
 * @param archives the static archives under {@code lib/}, linked whole into a consumer
 * @param cudaArchs the CUDA targets its device code was built for; empty without CUDA
 * @param relocatableDeviceCode whether its device code must be device-linked by the consumer
 * @param cudaRuntime how it reaches the CUDA runtime ({@code static}, {@code shared}, {@code stub})
 * @param needed the shared library's NEEDED entries: what a consumer's process must be able to load
 * @param linkFlags flags a consumer's link needs ({@code -l} and {@code -L} of the producer's own
 *     {@code <linkFlags>} and native dependencies)
 * @param glibc the glibc the library was held to ({@code kernel.glibc}, {@code 2.17}); empty without one
 */
public record BundleMetadata(int format, String platform, String library, String soname, String symbolVersion,
    List<String> exports, List<String> archives, String cudaArchs, boolean relocatableDeviceCode, String cudaRuntime,
    List<String> needed, List<String> linkFlags, String glibc) {
  public static final int FORMAT = 1;
  public static final String FILE = "kernel.properties";

  public BundleMetadata {
    exports = List.copyOf(exports);
    archives = List.copyOf(archives);
    needed = List.copyOf(needed);
    linkFlags = List.copyOf(linkFlags);
  }

  /**
   * The properties text, one key a line in sorted order, without the date {@link Properties#store}
   * writes (its time-zone names cost a cold JVM about 15 ms on every build, no-op included).
   */
  public byte[] toBytes() {
    Map<String, String> properties = new TreeMap<>();
    properties.put("format", Integer.toString(format));
    properties.put("platform", platform);
    properties.put("library", library);
    properties.put("soname", soname);
    properties.put("symbolVersion", symbolVersion);
    properties.put("cuda.archs", cudaArchs);
    properties.put("cuda.relocatableDeviceCode", Boolean.toString(relocatableDeviceCode));
    properties.put("cuda.runtime", cudaRuntime);
    putList(properties, "exports", exports);
    putList(properties, "archives", archives);
    putList(properties, "needed", needed);
    putList(properties, "linkFlags", linkFlags);
    if (!glibc.isEmpty()) {
      properties.put("glibc", glibc);
    }
    List<String> lines = new ArrayList<>();
    properties.forEach((key, value) -> lines.add(escape(key, true) + "=" + escape(value, false)));
    lines.sort(null);
    return (String.join("\n", lines) + "\n").getBytes(StandardCharsets.ISO_8859_1);
  }

  /**
   * A key or value as {@link Properties#load} reads it back: backslash, the separators and comment
   * marks escaped, a leading space (every space in a key) escaped, control characters and those
   * beyond Latin-1 as {@code \\uXXXX} (the file is Latin-1).
   */
  static String escape(String text, boolean key) {
    StringBuilder escaped = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '\\', '=', ':', '#', '!' -> escaped.append('\\').append(c);
        case ' ' -> escaped.append(i == 0 || key ? "\\ " : " ");
        case '\t' -> escaped.append("\\t");
        case '\n' -> escaped.append("\\n");
        case '\r' -> escaped.append("\\r");
        case '\f' -> escaped.append("\\f");
        default -> {
          if (c < 0x20 || c > 0xff) {
            escaped.append(String.format("\\u%04X", (int) c));
          } else {
            escaped.append(c);
          }
        }
      }
    }
    return escaped.toString();
  }

  /**
   * Reads {@code kernel.properties}; {@code where} names the bundle in messages.
   *
   * @throws BundleException for an unknown format or a missing key
   */
  public static BundleMetadata parse(byte[] bytes, String where) throws BundleException {
    Properties properties = new Properties();
    try {
      properties.load(new StringReader(new String(bytes, StandardCharsets.ISO_8859_1)));
    } catch (IOException | IllegalArgumentException e) {
      throw new BundleException(where + ": " + FILE + " cannot be read (" + e.getMessage() + ")");
    }
    String format = required(properties, "format", where);
    if (!format.equals(Integer.toString(FORMAT))) {
      throw new BundleException(where + " has metadata format " + format + "; this plugin reads format " + FORMAT
          + ". Use a plugin version that knows it, or rebuild the dependency with this one.");
    }
    return new BundleMetadata(FORMAT, required(properties, "platform", where), required(properties, "library", where),
        required(properties, "soname", where), required(properties, "symbolVersion", where),
        list(properties, "exports"), list(properties, "archives"), properties.getProperty("cuda.archs", ""),
        Boolean.parseBoolean(properties.getProperty("cuda.relocatableDeviceCode", "false")),
        properties.getProperty("cuda.runtime", "static"), list(properties, "needed"), list(properties, "linkFlags"),
        properties.getProperty("glibc", ""));
  }

  private static void putList(Map<String, String> properties, String key, List<String> values) {
    for (int i = 0; i < values.size(); i++) {
      // Zero-padded, so the sorted file lists them in order.
      properties.put(String.format("%s.%04d", key, i), values.get(i));
    }
  }

  private static List<String> list(Properties properties, String key) {
    List<String> values = new ArrayList<>();
    for (int i = 0; properties.containsKey(String.format("%s.%04d", key, i)); i++) {
      values.add(properties.getProperty(String.format("%s.%04d", key, i)));
    }
    return values;
  }

  private static String required(Properties properties, String key, String where) throws BundleException {
    String value = properties.getProperty(key);
    if (value == null) {
      throw new BundleException(where + ": " + FILE + " has no '" + key + "'; the bundle is damaged or not a kernel"
          + " bundle.");
    }
    return value;
  }
}
