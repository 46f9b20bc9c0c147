package io.github.kernelarchive.nativejar;

import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.jarfile.JarWriter;
import io.github.kernelarchive.util.Hashing;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.commons.compress.archivers.zip.ZipArchiveEntry;
import org.apache.commons.compress.archivers.zip.ZipFile;

/**
 * One jar for every platform, from the per-platform jars a CI matrix published: each jar's
 * {@code META-INF/native/<platform>/} goes in as it is, {@code <name>.platforms} lists them all,
 * and the headers come along once (they must be the same in every jar). kernel-archive-runtime
 * then picks this machine's platform from it.
 */
public final class NativeJarMerger {
  /** @param platforms the platforms the merged jar holds, sorted */
  public record Result(Path jar, List<String> platforms) {}

  private NativeJarMerger() {}

  /** @param jars the platform jars of {@code library}; other jars among them are passed over */
  public static Result merge(List<Path> jars, String library, Path target, FileTime time, String createdBy)
      throws IOException, BuildFailureException {
    Map<String, Path> platforms = new TreeMap<>();
    Map<String, JarWriter.Entry> entries = new TreeMap<>();
    Map<String, String> headerHashes = new TreeMap<>();
    Map<String, Path> headerSources = new TreeMap<>();
    List<ZipFile> open = new ArrayList<>();
    try {
      for (Path jar : jars) {
        ZipFile zip = ZipFile.builder().setPath(jar).get();
        open.add(zip);
        List<ZipArchiveEntry> all = Collections.list(zip.getEntries());
        List<String> held = all.stream().map(ZipArchiveEntry::getName)
            .filter(n -> n.startsWith("META-INF/native/") && n.endsWith("/" + library + ".index")).toList();
        for (String index : held) {
          String platform = index.substring("META-INF/native/".length(), index.lastIndexOf('/'));
          Path other = platforms.put(platform, jar);
          if (other != null) {
            throw new BuildFailureException("Two jars hold lib" + library + ".so for " + platform + ": " + other
                + " and " + jar + ". Depend on one jar per platform.");
          }
        }
        for (ZipArchiveEntry entry : all) {
          String name = entry.getName();
          if (entry.isDirectory()) {
            continue;
          }
          String platform = held.isEmpty() ? null : owner(name, held);
          if (platform != null) {
            entries.put(name, new JarWriter.Entry(name, () -> zip.getInputStream(entry), !name.endsWith(".index")));
          } else if (!held.isEmpty() && name.startsWith("META-INF/native/include/")) {
            String hash;
            try (InputStream in = zip.getInputStream(entry)) {
              hash = Hashing.of(in.readAllBytes());
            }
            String known = headerHashes.putIfAbsent(name, hash);
            if (known != null && !known.equals(hash)) {
              throw new BuildFailureException(name + " differs between " + headerSources.get(name) + " and " + jar
                  + ": the platform jars come from different sources. Build every platform from one commit.");
            }
            headerSources.putIfAbsent(name, jar);
            entries.putIfAbsent(name, new JarWriter.Entry(name, () -> zip.getInputStream(entry), false));
          }
        }
      }
      if (platforms.isEmpty()) {
        throw new BuildFailureException("No kernel jar of lib" + library + ".so among the jars to merge:"
            + " add the platform jars (<classifier>linux-x86_64</classifier>, linux-aarch64, ...) as dependencies.");
      }
      entries.put("META-INF/native/" + library + ".platforms", JarWriter.Entry.text(
          "META-INF/native/" + library + ".platforms", String.join("\n", platforms.keySet()) + "\n"));
      JarWriter.write(target, List.copyOf(entries.values()), time, createdBy);
      return new Result(target, List.copyOf(platforms.keySet()));
    } finally {
      for (ZipFile zip : open) {
        zip.close();
      }
    }
  }

  /** The platform whose folder {@code name} is in, among those this jar holds the library for; else null. */
  private static String owner(String name, List<String> indexes) {
    for (String index : indexes) {
      String folder = index.substring(0, index.lastIndexOf('/') + 1);
      if (name.startsWith(folder) && name.indexOf('/', folder.length()) < 0) {
        return folder;
      }
    }
    return null;
  }
}
