package io.github.kernelarchive.cache;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * One entry as the remote stores it: a single blob, so one {@code PUT} publishes it whole and one
 * {@code GET} fetches it (a server that renames uploads into place, as nginx's WebDAV module does,
 * never shows half of it). Five text lines (format, kind, key, manifest length, payload length),
 * then the manifest, then the payload. A tar would do the same, but its 512-byte headers and
 * padding buy nothing here, and this form lets the reader check the exact length it must have.
 */
final class EntryBundle {
  private static final String FORMAT = "kernel-archive entry 1";
  /** Manifests are text of a few kilobytes per member; anything larger is not one of ours. */
  private static final long MAX_MANIFEST = 64L << 20;
  private static final int MAX_HEADER = 512;

  private EntryBundle() {}

  /** The request body for {@code entry}, streamed from its files. */
  static HttpRequest.BodyPublisher publisher(CacheEntry entry) throws IOException {
    long manifest = Files.size(entry.manifest());
    long payload = Files.size(entry.payload());
    return HttpRequest.BodyPublishers.concat(
        HttpRequest.BodyPublishers.ofByteArray(header(entry.kind(), entry.key(), manifest, payload)),
        HttpRequest.BodyPublishers.ofFile(entry.manifest()),
        HttpRequest.BodyPublishers.ofFile(entry.payload()));
  }

  static byte[] header(EntryKind kind, String key, long manifestLength, long payloadLength) {
    return (FORMAT + "\n" + kind.folder() + "\n" + key + "\n" + manifestLength + "\n" + payloadLength + "\n")
        .getBytes(StandardCharsets.US_ASCII);
  }

  /**
   * Splits a received blob into {@code staging}'s manifest and payload.
   *
   * @throws IOException saying what is wrong (foreign format, another key, truncated or oversized)
   */
  static void unpack(Path bundle, EntryKind kind, String key, CacheEntry staging) throws IOException {
    try (FileChannel in = FileChannel.open(bundle, StandardOpenOption.READ)) {
      ByteBuffer head = ByteBuffer.allocate((int) Math.min(MAX_HEADER, in.size()));
      while (head.hasRemaining() && in.read(head) > 0) {
        // fill
      }
      List<String> lines = new ArrayList<>();
      ByteArrayOutputStream line = new ByteArrayOutputStream();
      int offset = 0;
      for (; offset < head.position() && lines.size() < 5; offset++) {
        byte b = head.get(offset);
        if (b == '\n') {
          lines.add(line.toString(StandardCharsets.US_ASCII));
          line.reset();
        } else {
          line.write(b);
        }
      }
      if (lines.size() < 5 || !lines.get(0).equals(FORMAT)) {
        throw new IOException("the body is not a cache entry of this plugin version");
      }
      if (!lines.get(1).equals(kind.folder()) || !lines.get(2).equals(key)) {
        throw new IOException("the body is the entry " + lines.get(1) + "/" + lines.get(2) + ", not the one asked for");
      }
      long manifest = length(lines.get(3));
      long payload = length(lines.get(4));
      if (manifest > MAX_MANIFEST) {
        throw new IOException("the body claims a manifest of " + manifest + " bytes");
      }
      long expected = offset + manifest + payload;
      if (in.size() != expected) {
        throw new IOException((in.size() < expected ? "truncated body: " : "oversized body: ") + in.size()
            + " bytes where the entry's header promises " + expected);
      }
      copy(in, offset, manifest, staging.manifest());
      copy(in, offset + manifest, payload, staging.payload());
    }
  }

  private static long length(String text) throws IOException {
    try {
      long value = Long.parseLong(text);
      if (value >= 0) {
        return value;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new IOException("the body's header has a bad length '" + text + "'");
  }

  private static void copy(FileChannel in, long from, long length, Path target) throws IOException {
    try (FileChannel out = FileChannel.open(target, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      for (long done = 0; done < length; ) {
        long n = in.transferTo(from + done, length - done, out);
        if (n <= 0) {
          throw new IOException("could not copy the received entry into " + target);
        }
        done += n;
      }
    }
  }
}
