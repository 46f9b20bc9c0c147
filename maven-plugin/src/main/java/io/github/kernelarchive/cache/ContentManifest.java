package io.github.kernelarchive.cache;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The manifest of a one-file entry (an object or a thin batch): its key, the SHA-256 of the
 * payload recorded when it was stored, and the headers it was compiled against with their hashes
 * (paths relative to the project when inside it). Same escaped tab-separated text as {@link Manifest}.
 */
public record ContentManifest(String key, String sha256, List<Manifest.Header> headers) {
  private static final String FORMAT = "kernel-archive content manifest 1";

  public ContentManifest {
    headers = List.copyOf(headers);
  }

  public byte[] toBytes() {
    StringBuilder text = new StringBuilder(FORMAT).append('\n');
    Manifest.line(text, "key", key);
    Manifest.line(text, "sha256", sha256);
    for (Manifest.Header header : headers) {
      Manifest.line(text, "header", header.path(), header.sha256());
    }
    return text.toString().getBytes(StandardCharsets.UTF_8);
  }

  /** Reads a manifest; a damaged, foreign or unsafe one is an {@link IOException} naming the file. */
  public static ContentManifest read(Path file) throws IOException {
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    if (lines.isEmpty() || !lines.get(0).equals(FORMAT)) {
      throw new IOException(file + " is not a content manifest of this plugin version");
    }
    String key = null;
    String sha = null;
    List<Manifest.Header> headers = new ArrayList<>();
    for (String line : lines.subList(1, lines.size())) {
      String[] f = Manifest.fields(file, line);
      switch (f[0]) {
        case "key" -> key = f[1];
        case "sha256" -> sha = f[1];
        case "header" -> headers.add(new Manifest.Header(SafeNames.checkHeaderPath(file, f[1]), f[2]));
        default -> throw new IOException(file + ": unknown line '" + f[0] + "'");
      }
    }
    if (key == null || sha == null) {
      throw new IOException(file + " is incomplete");
    }
    return new ContentManifest(key, sha, headers);
  }
}
