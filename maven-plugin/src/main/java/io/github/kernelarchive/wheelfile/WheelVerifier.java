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

  /** @throws IOException naming the first entry that does not match its RECORD line */
  public static void verify(Path wheel, String distInfo) throws IOException {
    Map<String, byte[]> entries = read(wheel);
    String recordName = distInfo + "/RECORD";
    byte[] record = entries.get(recordName);
    List<String> names = new ArrayList<>(entries.keySet());
    if (record == null || !names.get(names.size() - 1).equals(recordName)) {
      throw new IOException(wheel + ": " + recordName + " is missing or not the last entry");
    }
    Map<String, String[]> listed = new LinkedHashMap<>();
    for (String line : new String(record, StandardCharsets.UTF_8).split("\n")) {
      if (!line.isEmpty()) {
        String[] fields = splitCsv(line);
        if (fields.length != 3) {
          throw new IOException(wheel + ": RECORD line '" + line + "' does not have three fields");
        }
        listed.put(fields[0], fields);
      }
    }
    for (Map.Entry<String, byte[]> entry : entries.entrySet()) {
      String[] fields = listed.remove(entry.getKey());
      if (fields == null) {
        throw new IOException(wheel + ": " + entry.getKey() + " is not listed in RECORD");
      }
      if (entry.getKey().equals(recordName)) {
        continue;
      }
      MessageDigest sha256 = Hashing.sha256();
      String expected = "sha256=" + Base64.getUrlEncoder().withoutPadding().encodeToString(sha256.digest(entry.getValue()));
      if (!fields[1].equals(expected) || !fields[2].equals(Integer.toString(entry.getValue().length))) {
        throw new IOException(wheel + ": " + entry.getKey() + " does not match its RECORD line (" + fields[1] + ","
            + fields[2] + "; its content gives " + expected + "," + entry.getValue().length + ")");
      }
    }
    if (!listed.isEmpty()) {
      throw new IOException(wheel + ": RECORD lists files the wheel does not hold: " + listed.keySet());
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
