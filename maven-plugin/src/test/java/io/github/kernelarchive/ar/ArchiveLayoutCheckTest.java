package io.github.kernelarchive.ar;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The quick read-back of an archive just written says yes to exactly the archive planned, and no
 * to anything else (the full reading then says what differs).
 */
class ArchiveLayoutCheckTest {
  @TempDir Path dir;

  private final List<String> names = new ArrayList<>();
  private final List<List<String>> symbols = new ArrayList<>();
  private long[] sizes;

  /** Short and long names, odd and even sizes, members with no symbol and with several. */
  private Path written() throws Exception {
    return written(12);
  }

  private Path written(int count) throws Exception {
    List<ArWriter.Entry> entries = new ArrayList<>();
    sizes = new long[count];
    for (int i = 0; i < count; i++) {
      byte[] content = new byte[4000 + 7 * i]; // the index a small share: room is kept for it
      Arrays.fill(content, (byte) i);
      Path file = Files.write(dir.resolve("m" + i + ".bin"), content);
      String name = i % 5 == 0 ? "a-member-name-longer-than-sixteen-" + i + ".o" : "m" + i + ".o";
      List<String> defined = i % 3 == 0 ? List.of() : List.of("first_" + i, "second_" + i);
      entries.add(new ArWriter.Entry(name, file, 0, content.length, defined));
      names.add(name);
      symbols.add(defined);
      sizes[i] = content.length;
    }
    Path archive = dir.resolve("libm.a");
    ArWriter.write(archive, entries, 2);
    return archive;
  }

  @Test
  void theArchiveWrittenMatches() throws Exception {
    Path archive = written();
    assertTrue(ArchiveLayoutCheck.matches(archive, names, sizes, symbols));
    // The same bytes under a name the writer did not choose are no different: only the bytes count.
    Path copy = Files.copy(archive, dir.resolve("copy.a"));
    assertTrue(ArchiveLayoutCheck.matches(copy, names, sizes, symbols));
  }

  /**
   * Written as the combine writes: symbols found as the members are copied, after room kept for the
   * index, whose rest pads the long-name table.
   */
  @Test
  void anArchiveWrittenWithRoomForItsIndexMatches() throws Exception {
    Path exact = written(ArWriter.SAMPLE + 8); // more members than the room is sized from
    List<ArWriter.Entry> entries = new ArrayList<>();
    for (int i = 0; i < names.size(); i++) {
      entries.add(new ArWriter.Entry(names.get(i), dir.resolve("m" + i + ".bin"), sizes[i]));
    }
    Path roomy = dir.resolve("roomy.a");
    ArWriter.write(roomy, entries, 2, (member, bytes) -> symbols.get(member));
    assertTrue(Files.size(roomy) > Files.size(exact), "room was kept for the index");
    assertTrue(ArchiveLayoutCheck.matches(roomy, names, sizes, symbols));
  }

  @Test
  void anythingElseDoesNot() throws Exception {
    Path archive = written();
    List<String> renamed = new ArrayList<>(names);
    renamed.set(1, "other.o");
    assertFalse(ArchiveLayoutCheck.matches(archive, renamed, sizes, symbols), "a short name");
    renamed = new ArrayList<>(names);
    renamed.set(5, "a-member-name-longer-than-sixteen-6.o");
    assertFalse(ArchiveLayoutCheck.matches(archive, renamed, sizes, symbols), "a long name");
    long[] resized = sizes.clone();
    resized[3]++;
    assertFalse(ArchiveLayoutCheck.matches(archive, names, resized, symbols), "a size");
    List<List<String>> more = new ArrayList<>(symbols);
    more.set(2, List.of("first_2", "second_2", "third_2"));
    assertFalse(ArchiveLayoutCheck.matches(archive, names, sizes, more), "a symbol the index lacks");
    List<List<String>> swapped = new ArrayList<>(symbols);
    swapped.set(1, List.of("second_1", "first_1"));
    assertFalse(ArchiveLayoutCheck.matches(archive, names, sizes, swapped), "the index's order");
    List<List<String>> moved = new ArrayList<>(symbols);
    moved.set(1, List.of());
    moved.set(2, List.of("first_1", "second_1", "first_2", "second_2"));
    assertFalse(ArchiveLayoutCheck.matches(archive, names, sizes, moved), "a symbol listed at another member");
    assertFalse(ArchiveLayoutCheck.matches(archive, names.subList(0, 11), Arrays.copyOf(sizes, 11),
        symbols.subList(0, 11)), "a member more than planned");

    byte[] bytes = Files.readAllBytes(archive);
    Path damaged = dir.resolve("damaged.a");
    Files.write(damaged, Arrays.copyOf(bytes, bytes.length - 1));
    assertFalse(ArchiveLayoutCheck.matches(damaged, names, sizes, symbols), "truncated");
    Files.write(damaged, bytes);
    Files.write(damaged, new byte[] {'\n'}, StandardOpenOption.APPEND);
    assertFalse(ArchiveLayoutCheck.matches(damaged, names, sizes, symbols), "a byte after the last member");
    byte[] header = bytes.clone();
    int last = bytes.length - (int) sizes[11] - (int) (sizes[11] & 1) - ArReader.HEADER_SIZE;
    header[last + 58] = 'x';
    Files.write(damaged, header);
    assertFalse(ArchiveLayoutCheck.matches(damaged, names, sizes, symbols), "a damaged header terminator");
    byte[] index = bytes.clone();
    index[ArReader.MAGIC.length + ArReader.HEADER_SIZE + 3]++; // the index's count
    Files.write(damaged, index);
    assertFalse(ArchiveLayoutCheck.matches(damaged, names, sizes, symbols), "the index's count");
    Files.write(damaged, "!<thin>\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    assertFalse(ArchiveLayoutCheck.matches(damaged, names, sizes, symbols), "no regular archive");
  }
}
