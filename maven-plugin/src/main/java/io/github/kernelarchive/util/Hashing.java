package io.github.kernelarchive.util;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/** SHA-256 helpers: every key and content hash in the build is one of these hex strings. */
public final class Hashing {
  private Hashing() {}

  public static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  }

  public static String ofFile(Path file) throws IOException {
    MessageDigest digest = sha256();
    byte[] buffer = new byte[64 * 1024];
    try (InputStream in = Files.newInputStream(file)) {
      for (int n; (n = in.read(buffer)) > 0; ) {
        digest.update(buffer, 0, n);
      }
    }
    return HexFormat.of().formatHex(digest.digest());
  }

  public static String of(byte[] bytes) {
    return HexFormat.of().formatHex(sha256().digest(bytes));
  }

  /**
   * Hash of a list of strings. Each part is length-prefixed so that ("ab","c") and ("a","bc")
   * give different keys.
   */
  public static String ofStrings(List<String> parts) {
    Parts key = new Parts(parts.size());
    for (String part : parts) {
      key.add(part);
    }
    return key.hash();
  }

  /**
   * {@link #ofStrings}, fed part by part: the same hash for the same parts, without a list of them
   * first (keys over 50,000 members have 100,000 parts, some of them made of two strings). Gathered
   * in one array and hashed in one call: each MessageDigest.update has a fixed cost. ASCII parts
   * (names, paths, hex hashes: nearly all) are copied char by char, not encoded.
   */
  public static final class Parts {
    private byte[] bytes;
    private int length;

    public Parts(int expectedParts) {
      bytes = new byte[64 * Math.max(1, expectedParts)];
    }

    public Parts add(String part) {
      return add(part, "");
    }

    /** One part: {@code first} followed by {@code second}. */
    public Parts add(String first, String second) {
      if (isAscii(first) && isAscii(second)) {
        putAscii(first.length() + second.length() + ":");
        putAscii(first);
        putAscii(second);
      } else {
        byte[] a = first.getBytes(StandardCharsets.UTF_8);
        byte[] b = second.getBytes(StandardCharsets.UTF_8);
        putAscii(a.length + b.length + ":");
        room(a.length + b.length);
        System.arraycopy(a, 0, bytes, length, a.length);
        System.arraycopy(b, 0, bytes, length + a.length, b.length);
        length += a.length + b.length;
      }
      return this;
    }

    public String hash() {
      MessageDigest sha = sha256();
      sha.update(bytes, 0, length);
      return HexFormat.of().formatHex(sha.digest());
    }

    /** Copies {@code text} (ASCII). */
    private void putAscii(String text) {
      room(text.length());
      for (int i = 0; i < text.length(); i++) {
        bytes[length++] = (byte) text.charAt(i);
      }
    }

    private void room(int more) {
      if (length + more > bytes.length) {
        bytes = Arrays.copyOf(bytes, Math.max(2 * bytes.length, length + more));
      }
    }

    private static boolean isAscii(String text) {
      for (int i = 0; i < text.length(); i++) {
        if (text.charAt(i) >= 0x80) {
          return false;
        }
      }
      return true;
    }
  }

  /** {@link #ofFile} for callers that cannot throw checked exceptions (stream lambdas). */
  public static String ofFileUnchecked(Path file) {
    try {
      return ofFile(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
