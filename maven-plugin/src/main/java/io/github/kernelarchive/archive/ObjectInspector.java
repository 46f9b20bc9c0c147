package io.github.kernelarchive.archive;

import io.github.kernelarchive.elf.ElfObject;
import io.github.kernelarchive.elf.ObjectRequirements;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Looks at each object before anything is archived: the ELF checks ({@link ObjectRequirements}),
 * the symbols for the index, and the strong definitions the duplicate check before the link needs.
 * A wrong-CPU or non-object file is refused here, naming the file, before {@code ar} sees it.
 * Small objects are read whole into arrays of their own and kept within a budget the caller shares
 * between its threads, so thousands of them are written from memory rather than by opening every
 * file twice. Larger ones are read into a buffer the calling thread reuses ({@link Scratch}), and
 * only those beyond {@link #REUSE_LIMIT} are mapped: mapping 5,000 objects of 64 KiB cost a
 * mapping, a fault and, once the buffer was collected, an unmapping each (115 ms of the JVM's
 * reference-handler thread in one build, beside the inspection's own time), more than copying
 * them. Their bytes are read again by the write that copies and hashes them ({@link ArWriter}).
 */
final class ObjectInspector {
  /**
   * Objects up to this size are read whole; larger ones are mapped. Mapping costs a system call and
   * an address range each (freed when collected, so the limit keeps their number moderate),
   * reading costs a copy of every byte.
   */
  static final int READ_LIMIT = 16 << 10;

  /**
   * Objects up to this size that are not kept are read into a reused buffer; larger ones are
   * mapped. Measured here: reading from the page cache copies 18-20 GB/s, about 50 us per MiB; a
   * mapping costs a few tens of microseconds whatever the size (5,000 unmappings alone took the
   * reference-handler thread 115 ms), so about 1 MiB is where the two meet.
   */
  static final int REUSE_LIMIT = 1 << 20;

  /** A buffer one thread reuses for the objects it reads without keeping, grown to the largest. */
  static final class Scratch {
    private ByteBuffer buffer = ByteBuffer.allocateDirect(0);

    /** The buffer, cleared, with room for exactly {@code size} bytes. */
    ByteBuffer sized(int size) {
      if (buffer.capacity() < size) {
        buffer = ByteBuffer.allocateDirect(Math.max(size, Math.min(2 * buffer.capacity(), REUSE_LIMIT)));
      }
      return buffer.clear().limit(size);
    }
  }

  private final ObjectRequirements requirements;

  ObjectInspector(int expectedMachine) {
    this.requirements = new ObjectRequirements(expectedMachine);
  }

  /**
   * One object's facts, as of {@code modified}, and its bytes when they were kept ({@code null}
   * otherwise).
   */
  record Inspection(String name, Path object, long size, FileTime modified, List<String> symbols,
      List<String> strongDefinitions, byte[] bytes) {
    Inspection {
      symbols = List.copyOf(symbols);
      strongDefinitions = List.copyOf(strongDefinitions);
    }

    /** Whether the file still has the size and modification time it had when it was inspected. */
    boolean unchanged() throws IOException {
      BasicFileAttributes now = Files.readAttributes(object, BasicFileAttributes.class);
      return now.size() == size && now.lastModifiedTime().equals(modified);
    }
  }

  /**
   * @param where how messages name the object, e.g. "object '/x/k.o' (member 3 of archive 'k')"
   * @param keepBudget bytes that may still be kept; what is kept is taken from it
   * @param scratch the calling thread's buffer: the inspection holds no reference to it
   */
  Inspection inspect(String name, Path object, String where, AtomicLong keepBudget, Scratch scratch)
      throws IOException, ObjectRequirements.MemberProblem {
    // Taken before the bytes, so a write that lands while they are read changes it afterwards.
    FileTime modified = Files.getLastModifiedTime(object);
    try (FileChannel channel = FileChannel.open(object, StandardOpenOption.READ)) {
      long size = channel.size();
      ByteBuffer elf;
      byte[] kept = null;
      if (size <= READ_LIMIT) {
        byte[] bytes = new byte[(int) size];
        readFully(channel, ByteBuffer.wrap(bytes), 0, object);
        elf = ByteBuffer.wrap(bytes);
        if (keepBudget.addAndGet(-size) >= 0) {
          kept = bytes;
        } else {
          keepBudget.addAndGet(size);
        }
      } else if (size <= REUSE_LIMIT) {
        elf = scratch.sized((int) size);
        readFully(channel, elf, 0, object);
        elf.flip();
      } else {
        elf = channel.map(FileChannel.MapMode.READ_ONLY, 0, size);
      }
      ElfObject parsed = requirements.check(elf, where, object);
      return new Inspection(name, object, size, modified, parsed.definedExternalSymbols(), parsed.strongDefinitions(),
          kept);
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
