package io.github.kernelarchive.ar;

import io.github.kernelarchive.util.Hashing;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;

/**
 * The identity of an archive, for cache manifests and link keys, without another pass over its
 * payload: SHA-256 over the archive's bytes in order, where each member's data is replaced by that
 * member's own SHA-256. Validation has already hashed every member against the plan, so the
 * digest covers every byte: a changed header, index, padding or member changes it. Reading the rest costs a few hundred kilobytes for thousands of
 * members, where hashing the file again cost a full pass over hundreds of megabytes.
 */
public final class ArchiveDigest {
  private static final byte[] FORMAT = "kernel-archive digest 1\n".getBytes(StandardCharsets.US_ASCII);

  private ArchiveDigest() {}

  /** @param memberSha256 each member's content hash, in archive order */
  public static String of(Path archive, List<String> memberSha256) throws IOException, ArFormatException {
    return of(archive, ArReader.read(archive), memberSha256);
  }

  /** {@link #of(Path, List)} with the archive's table of contents already read. */
  public static String of(Path archive, ArReader.Contents contents, List<String> memberSha256)
      throws IOException, ArFormatException {
    try (FileChannel channel = FileChannel.open(archive, StandardOpenOption.READ)) {
      List<ArMember> members = contents.members();
      if (members.size() != memberSha256.size()) {
        throw new ArFormatException(members.size() + " members where " + memberSha256.size() + " were validated");
      }
      if (channel.size() != contents.fileSize()) {
        throw new ArFormatException("changed size while it was read");
      }
      Builder digest = new Builder();
      FileWindow window = new FileWindow(channel, contents.fileSize());
      long position = 0;
      for (int i = 0; i < members.size(); i++) {
        ArMember member = members.get(i);
        update(digest.sha, channel, window, position, member.dataOffset());
        digest.member(memberSha256.get(i));
        position = member.dataOffset() + member.size();
      }
      update(digest.sha, channel, window, position, contents.fileSize());
      return digest.finish();
    }
  }

  /**
   * The digest fed in archive order: the archive's own bytes ({@link #bytes}) and, in place of each
   * member's data, its hash ({@link #member}). The writer feeds it what it writes, so an archive
   * it has just written needs no second read of its headers ({@link ArWriter.Written#digest}).
   */
  static final class Builder {
    private final MessageDigest sha = Hashing.sha256();

    Builder() {
      sha.update(FORMAT);
    }

    Builder bytes(byte[] bytes) {
      sha.update(bytes);
      return this;
    }

    Builder member(String sha256Hex) {
      sha.update(HexFormat.of().parseHex(sha256Hex));
      return this;
    }

    String finish() {
      return HexFormat.of().formatHex(sha.digest());
    }
  }

  /** Feeds bytes [from, to) of the file to the digest: headers and padding through the window. */
  private static void update(MessageDigest digest, FileChannel channel, FileWindow window, long from, long to)
      throws IOException {
    if (to - from <= FileWindow.SIZE) {
      digest.update(window.read(from, (int) (to - from)));
      return;
    }
    ByteBuffer buffer = ByteBuffer.allocate((int) Math.min(Math.max(to - from, 1), 1 << 16));
    for (long at = from; at < to; ) {
      buffer.clear().limit((int) Math.min(buffer.capacity(), to - at));
      int n = channel.read(buffer, at);
      if (n < 0) {
        throw new IOException("archive shrank while it was read");
      }
      digest.update(buffer.flip());
      at += n;
    }
  }
}
