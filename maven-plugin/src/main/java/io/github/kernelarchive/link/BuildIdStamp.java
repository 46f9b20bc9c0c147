package io.github.kernelarchive.link;

import io.github.kernelarchive.elf.ElfFormatException;
import io.github.kernelarchive.elf.ElfObject;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Optional;

/**
 * Writes a library's GNU build ID in place. A link that starts before its key is known (its
 * archives still being written) asks the linker for {@link #PLACEHOLDER}, and the key's ID replaces
 * it afterwards: the build ID is a note no other byte of the file depends on, so the library is the
 * one a link given the key's ID would have written.
 */
final class BuildIdStamp {
  /** 20 bytes, as long as the key's IDs: "kernel-archive-build" in hex. */
  static final String PLACEHOLDER = HexFormat.of().formatHex("kernel-archive-build".getBytes(StandardCharsets.US_ASCII));

  private BuildIdStamp() {}

  /**
   * Replaces the placeholder in {@code library} with {@code id} (hex, 20 bytes). A build ID other
   * than the placeholder (set by the user's {@code <linkFlags>}) is left as it is.
   */
  static void write(Path library, String id) throws IOException {
    byte[] placeholder = HexFormat.of().parseHex(PLACEHOLDER);
    byte[] replacement = HexFormat.of().parseHex(id);
    try (FileChannel channel = FileChannel.open(library, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
      MappedByteBuffer file = channel.map(FileChannel.MapMode.READ_ONLY, 0, channel.size());
      Optional<ElfObject.Field> field = ElfObject.buildIdField(file);
      if (field.isEmpty() || field.get().length() != placeholder.length) {
        return;
      }
      ByteBuffer current = ByteBuffer.allocate(placeholder.length);
      channel.read(current, field.get().offset());
      if (!Arrays.equals(current.array(), placeholder)) {
        return;
      }
      channel.write(ByteBuffer.wrap(replacement), field.get().offset());
    } catch (ElfFormatException e) {
      throw new IOException(library + " as linked is not a valid ELF file: " + e.getMessage(), e);
    }
  }
}
