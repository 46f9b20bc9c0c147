package io.github.kernelarchive.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.pipeline.Commands;
import io.github.kernelarchive.pipeline.Installed;
import io.github.kernelarchive.scan.Language;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A weak hidden reference that nothing defines (native/'s {@code mha::cuda::error_string} in a
 * CPU-only build, tested for null) must read null. bfd, lld and mold resolve it to null at link
 * time; gold leaves it in the dynamic symbol table, where glibc's loader binds it to the library's
 * own load address. The audit refuses such a library, naming the linker to use.
 */
class UndefinedHiddenTest {
  private static final String SOURCE = "__attribute__((weak, visibility(\"hidden\"))) const char *error_string(int);\n"
      + "int has_cuda(void) { return error_string != 0; }\n";

  private static Path link(Path dir, String linker) throws Exception {
    Files.writeString(dir.resolve("w.c"), SOURCE);
    Path library = dir.resolve("libw-" + linker + ".so");
    Commands.run(List.of("cc", "-shared", "-fPIC", "-O2", "-fuse-ld=" + linker, "w.c", "-o", library.toString()), dir);
    return library;
  }

  /** What the library answers when a program calls has_cuda(). */
  private static String answer(Path dir, Path library) throws Exception {
    Files.writeString(dir.resolve("m.c"), "#include <stdio.h>\nint has_cuda(void);\n"
        + "int main(void) { printf(\"%d\\n\", has_cuda()); return 0; }\n");
    Path program = dir.resolve("m-" + library.getFileName());
    Commands.run(List.of("cc", "m.c", library.toString(), "-Wl,-rpath," + dir, "-o", program.toString()), dir);
    return Commands.run(List.of(program.toString()), dir).strip();
  }

  private static ExportAudit.Report audit(Path dir, Path library) throws Exception {
    return ExportAudit.audit(library, library, List.of("has_cuda"), List.of(), List.of(), dir, dir.resolve("audit.txt"));
  }

  @Test
  void goldsUnresolvedWeakHiddenReferenceIsRefused(@TempDir Path dir) throws Exception {
    Installed.assumeCompiler(Language.C);
    Installed.assumeOnPath("ld.gold", "gold's weak hidden references");
    Path library = link(dir, "gold");
    assertEquals("1", answer(dir, library), "the loader gives the missing function an address");
    BuildFailureException e = assertThrows(BuildFailureException.class, () -> audit(dir, library));
    assertTrue(e.getMessage().contains("error_string is undefined with hidden visibility in the dynamic symbol table"),
        e.getMessage());
    assertTrue(e.getMessage().contains("Link with kernel.linker=mold, lld or bfd"), e.getMessage());
  }

  @Test
  void bfdResolvesItToNullAndPasses(@TempDir Path dir) throws Exception {
    Installed.assumeCompiler(Language.C);
    Path library = link(dir, "bfd");
    assertEquals("0", answer(dir, library));
    assertEquals(List.of("has_cuda"), audit(dir, library).exports());
  }
}
