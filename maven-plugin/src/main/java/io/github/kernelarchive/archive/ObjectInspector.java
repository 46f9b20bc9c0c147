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
 * the symbols for the index, and the strong definitions the duplicate check before the link needs. A wrong-CPU or non-object file is refused here, naming the file,
 * before {@code ar} sees it. This does not read the payload: objects above {@link #READ_LIMIT}
 * are mapped, and the checks touch only their header, section table and symbol table; the bytes
 * are read once, by the write that copies and hashes them ({@link ArWriter}). Small objects are
 * read whole, and kept within a budget the caller shares between its threads, so thousands of
 * them are written from memory rather than by opening every file twice.
 */
final class ObjectInspector {
  /**
   * Objects up to this size are read whole; larger ones are mapped. Mapping costs a system call and
   * an address range each (freed when collected, so the limit keeps their number moderate),
   * reading costs a copy of every byte.
   */
  static final int READ_LIMIT = 16 << 10;

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
   */
  Inspection inspect(String name, Path object, String where, AtomicLong keepBudget)
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
