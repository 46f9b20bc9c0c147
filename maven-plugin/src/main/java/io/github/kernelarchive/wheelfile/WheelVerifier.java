package io.github.kernelarchive.wheelfile;

import io.github.kernelarchive.util.Hashing;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.commons.compress.archivers.zip.ZipArchiveEntry;
import org.apache.commons.compress.archivers.zip.ZipFile;

/**
 * Reads a wheel back and checks it as an installer that verifies would: every file is listed in
 * {@code <distInfo>/RECORD} with its SHA-256 and size, RECORD lists itself without a hash, nothing
 * is listed that is not there, and RECORD is the last entry.
 */
public final class WheelVerifier {
  private WheelVerifier() {}

  /** The wheel's entries, name to content, in archive order (for tests and for reading a wheel back). */
  public static Map<String, byte[]> read(Path wheel) throws IOException {
    Map<String, byte[]> entries = new LinkedHashMap<>();
    try (ZipFile zip = ZipFile.builder().setPath(wheel).get()) {
      for (ZipArchiveEntry entry : Collections.list(zip.getEntriesInPhysicalOrder())) {
        try (InputStream in = zip.getInputStream(entry)) {
          entries.put(entry.getName(), in.readAllBytes());
        }
      }
    }
    return entries;
  }

  /**
   * Reads each entry once, as a stream: a wheel's files may be larger than the heap.
   *
   * @throws IOException naming the first entry that does not match its RECORD line
   */
  public static void verify(Path wheel, String distInfo) throws IOException {
    String recordName = distInfo + "/RECORD";
    try (ZipFile zip = ZipFile.builder().setPath(wheel).get()) {
      List<ZipArchiveEntry> entries = Collections.list(zip.getEntriesInPhysicalOrder());
      if (entries.isEmpty() || !entries.get(entries.size() - 1).getName().equals(recordName)) {
        throw new IOException(wheel + ": " + recordName + " is missing or not the last entry");
      }
      Map<String, String[]> listed = new LinkedHashMap<>();
      try (InputStream in = zip.getInputStream(entries.get(entries.size() - 1))) {
        for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
          if (!line.isEmpty()) {
            String[] fields = splitCsv(line);
            if (fields.length != 3) {
              throw new IOException(wheel + ": RECORD line '" + line + "' does not have three fields");
            }
            listed.put(fields[0], fields);
          }
        }
      }
      for (ZipArchiveEntry entry : entries) {
        String[] fields = listed.remove(entry.getName());
        if (fields == null) {
          throw new IOException(wheel + ": " + entry.getName() + " is not listed in RECORD");
        }
        if (entry.getName().equals(recordName)) {
          continue;
        }
        MessageDigest sha256 = Hashing.sha256();
        long size = 0;
        byte[] buffer = new byte[1 << 16];
        try (InputStream in = zip.getInputStream(entry)) {
          for (int n; (n = in.read(buffer)) > 0; ) {
            sha256.update(buffer, 0, n);
            size += n;
          }
        }
        String expected = "sha256=" + Base64.getUrlEncoder().withoutPadding().encodeToString(sha256.digest());
        if (!fields[1].equals(expected) || !fields[2].equals(Long.toString(size))) {
          throw new IOException(wheel + ": " + entry.getName() + " does not match its RECORD line (" + fields[1] + ","
              + fields[2] + "; its content gives " + expected + "," + size + ")");
        }
      }
      if (!listed.isEmpty()) {
        throw new IOException(wheel + ": RECORD lists files the wheel does not hold: " + listed.keySet());
      }
    }
  }

  /** The fields of one CSV line as RECORD writes them (quoted fields with doubled quotes). */
  static String[] splitCsv(String line) {
    List<String> fields = new ArrayList<>();
    StringBuilder field = new StringBuilder();
    boolean quoted = false;
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (quoted) {
        if (c == '"' && i + 1 < line.length() && line.charAt(i + 1) == '"') {
          field.append('"');
          i++;
        } else if (c == '"') {
          quoted = false;
        } else {
          field.append(c);
        }
      } else if (c == '"') {
        quoted = true;
      } else if (c == ',') {
        fields.add(field.toString());
        field.setLength(0);
      } else {
        field.append(c);
      }
    }
    fields.add(field.toString());
    return fields.toArray(new String[0]);
  }
}
