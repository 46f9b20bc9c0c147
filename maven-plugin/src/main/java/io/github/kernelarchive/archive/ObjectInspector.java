package io.github.kernelarchive.archive;

import io.github.kernelarchive.elf.ObjectRequirements;
import io.github.kernelarchive.util.Hashing;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32C;

/**
 * Reads each object once, before anything is archived: SHA-256 and CRC-32C of its bytes, and from
 * the same bytes the ELF checks ({@link ObjectRequirements}) and the symbols for the index. A
 * wrong-CPU or non-object file is refused here, naming the file, before {@code ar} sees it.
 * Small objects' bytes can be kept, within a budget the caller shares between its threads, so
 * the archive is written from exactly the bytes that were hashed without opening the files again.
 */
final class ObjectInspector {
  /** Objects up to this size are read whole into an array; larger ones are streamed and mapped. */
  private static final int WHOLE_READ_LIMIT = 4 << 20;
  private static final int CHUNK = 1 << 20;

  private final ObjectRequirements requirements;

  ObjectInspector(int expectedMachine) {
    this.requirements = new ObjectRequirements(expectedMachine);
  }

  /** One object's facts, and its bytes when they were kept ({@code null} otherwise). */
  record Inspection(InspectedObject object, byte[] bytes) {}

  /**
   * @param where how messages name the object, e.g. "object '/x/k.o' (member 3 of archive 'k')"
   * @param keepBudget bytes that may still be kept; what is kept is taken from it
   */
  Inspection inspect(String name, Path object, String where, AtomicLong keepBudget)
      throws IOException, ObjectRequirements.MemberProblem {
    try (FileChannel channel = FileChannel.open(object, StandardOpenOption.READ)) {
      long size = channel.size();
      MessageDigest sha = Hashing.sha256();
      CRC32C crc = new CRC32C();
      ByteBuffer elf;
      byte[] kept = null;
      if (size <= WHOLE_READ_LIMIT) {
        byte[] bytes = new byte[(int) size];
        readFully(channel, ByteBuffer.wrap(bytes), 0, object);
        sha.update(bytes);
        crc.update(bytes);
        elf = ByteBuffer.wrap(bytes);
        if (keepBudget.addAndGet(-size) >= 0) {
          kept = bytes;
        } else {
          keepBudget.addAndGet(size);
        }
      } else {
        // Streamed for the hashes; mapped for the ELF checks, which touch only the header and symbol table.
        byte[] bytes = new byte[CHUNK];
        for (long at = 0; at < size; ) {
          ByteBuffer chunk = ByteBuffer.wrap(bytes, 0, (int) Math.min(bytes.length, size - at));
          readFully(channel, chunk, at, object);
          sha.update(bytes, 0, chunk.limit());
          crc.update(bytes, 0, chunk.limit());
          at += chunk.limit();
        }
        elf = channel.map(FileChannel.MapMode.READ_ONLY, 0, size);
      }
      List<String> symbols = requirements.check(elf, where, object).definedExternalSymbols();
      return new Inspection(new InspectedObject(name, object, size, HexFormat.of().formatHex(sha.digest()),
          crc.getValue(), symbols), kept);
    }
  }

  /** Fills {@code into} from {@code position}; the file must not end early (it is being rewritten). */
  static void readFully(FileChannel channel, ByteBuffer into, long position, Path file) throws IOException {
    while (into.hasRemaining()) {
      if (channel.read(into, position + into.position()) < 0) {
        throw new IOException(file + " became shorter while it was read (is another build writing it?)");
      }
    }
  }
}
