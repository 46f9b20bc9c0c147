package io.github.kernelarchive.wheel;

import io.github.kernelarchive.elf.ElfObject;
import io.github.kernelarchive.pipeline.Commands;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** Shared libraries built by the real C compiler for the wheel tests. */
final class NativeLibraries {
  private NativeLibraries() {}

  /** {@code cc -shared} of {@code source} into {@code dir/file} with the SONAME {@code file}, plus {@code flags}. */
  static Path build(Path dir, String file, String source, String... flags) throws Exception {
    Files.createDirectories(dir);
    Path c = Files.writeString(dir.resolve(file + ".c"), source);
    Path library = dir.resolve(file);
    List<String> argv = new ArrayList<>(List.of("cc", "-shared", "-fPIC", "-O1", "-o", library.toString(),
        "-Wl,-soname," + file, c.toString()));
    argv.addAll(List.of(flags));
    Commands.run(argv, dir);
    return library;
  }

  static ElfObject parse(Path library) throws Exception {
    return ElfObject.parse(ByteBuffer.wrap(Files.readAllBytes(library)));
  }
}
