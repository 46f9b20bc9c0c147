package io.github.kernelarchive.runtime;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * What a kernel jar says of one platform's libraries ({@code META-INF/native/<platform>/<name>.index},
 * written by the plugin's {@code jar} goal): the files in load order, each with its SHA-256 and
 * SONAME, the glibc floor and how CUDA is linked. A properties file, so reading it needs nothing
 * beyond the JDK.
 *
 * @param sha256 the SHA-256 of the index itself: names the folder the files are extracted into
 */
public record NativeIndex(String library, String platform, String glibc, String cuda, List<String> loadOrder,
    Properties entries, String sha256) {
  static final int FORMAT = 1;
  /** A name the loader writes into its folder as it is: no separator, no dot file, nothing unprintable. */
  private static final Pattern FILE_NAME = Pattern.compile("[\\x21-\\x7e&&[^/\\\\.]][\\x21-\\x7e&&[^/\\\\]]*");

  public NativeIndex {
    loadOrder = List.copyOf(loadOrder);
  }

  static NativeIndex parse(byte[] text, String where) throws IOException {
    Properties properties = new Properties();
    properties.load(new ByteArrayInputStream(text));
    String format = properties.getProperty("format");
    if (!String.valueOf(FORMAT).equals(format)) {
      throw new IOException(where + " has index format " + format + "; this kernel-archive-runtime reads format "
          + FORMAT + ": use the runtime of the plugin version that built the jar");
    }
    String load = required(properties, "load", where);
    List<String> order = Arrays.stream(load.trim().split("\\s+")).toList();
    Set<String> seen = new HashSet<>();
    for (String file : order) {
      if (!FILE_NAME.matcher(file).matches()) {
        throw new IOException(where + " lists '" + file.replaceAll("\\p{Cntrl}", "?") + "' to load, which is no plain"
            + " file name (no '/', no leading '.', printable characters only)");
      }
      if (!seen.add(file)) {
        throw new IOException(where + " lists " + file + " twice to load");
      }
      required(properties, "sha256." + file, where);
    }
    return new NativeIndex(required(properties, "library", where), required(properties, "platform", where),
        properties.getProperty("glibc", ""), properties.getProperty("cuda", "none"), order, properties,
        Hashes.sha256(text));
  }

  private static String required(Properties properties, String key, String where) throws IOException {
    String value = properties.getProperty(key);
    if (value == null || value.isBlank()) {
      throw new IOException(where + " lacks '" + key + "'");
    }
    return value.trim();
  }

  /** The library itself: loaded last, after the files it needs. */
  public String mainFile() {
    return loadOrder.get(loadOrder.size() - 1);
  }

  public String sha256Of(String file) {
    return entries.getProperty("sha256." + file).trim();
  }
}
