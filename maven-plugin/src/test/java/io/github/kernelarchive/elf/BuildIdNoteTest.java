package io.github.kernelarchive.elf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The GNU build ID note of files gcc and the linker really write. */
class BuildIdNoteTest {
  @TempDir Path dir;

  private Path compile(List<String> flags, String output) throws Exception {
    Path source = Files.writeString(dir.resolve("f.c"), "int f(void) { return 1; }\n");
    List<String> command = new ArrayList<>(List.of("cc", "-fPIC", "-o", output, source.toString()));
    command.addAll(flags);
    Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    String log = new String(process.getInputStream().readAllBytes());
    assertEquals(0, process.waitFor(), log);
    return dir.resolve(output);
  }

  @Test
  void readsTheIdTheLinkerWasGiven() throws Exception {
    Path library = compile(List.of("-shared", "-Wl,--build-id=0x0123456789abcdef0123"), "libf.so");

    assertEquals(Optional.of("0123456789abcdef0123"), ElfObject.buildId(ByteBuffer.wrap(Files.readAllBytes(library))));
  }

  @Test
  void anObjectOrALibraryWithoutOneHasNone() throws Exception {
    Path object = compile(List.of("-c"), "f.o"); // has a .note.gnu.property note, not a build ID
    Path library = compile(List.of("-shared", "-Wl,--build-id=none"), "libnone.so");

    assertEquals(Optional.empty(), ElfObject.buildId(ByteBuffer.wrap(Files.readAllBytes(object))));
    assertEquals(Optional.empty(), ElfObject.buildId(ByteBuffer.wrap(Files.readAllBytes(library))));
  }

  @Test
  void aNoteRunningPastItsSectionIsRefused() throws Exception {
    byte[] bytes = Files.readAllBytes(compile(List.of("-shared", "-Wl,--build-id=0xabcd"), "libg.so"));
    ByteBuffer elf = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
    // Every note's description size made huge: the first note read now claims more than its section.
    long headers = elf.getLong(40);
    int entrySize = Short.toUnsignedInt(elf.getShort(58));
    for (int i = 0; i < Short.toUnsignedInt(elf.getShort(60)); i++) {
      int header = (int) (headers + (long) i * entrySize);
      if (elf.getInt(header + 4) == 7) {
        elf.putInt((int) elf.getLong(header + 24) + 4, 0x7fff_fff0);
      }
    }

    assertThrows(ElfFormatException.class, () -> ElfObject.buildId(ByteBuffer.wrap(bytes)));
  }
}
