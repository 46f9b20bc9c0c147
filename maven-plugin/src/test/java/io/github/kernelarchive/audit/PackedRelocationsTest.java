package io.github.kernelarchive.audit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.elf.ElfObject;
import io.github.kernelarchive.pipeline.Commands;
import io.github.kernelarchive.pipeline.Installed;
import io.github.kernelarchive.scan.Language;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Packed relative relocations without the version need that makes glibc read them (what mold 1.10
 * writes for {@code -z pack-relative-relocs}) fail the audit whatever the glibc target: such a
 * library loads on no glibc. With the need (bfd), it passes, and is loaded here to show it.
 */
class PackedRelocationsTest {
  private static final String SOURCE = "#include <string.h>\nstatic const char *names[] = {\"a\", \"bb\", \"ccc\"};\n"
      + "const char **table = names;\nint length(int i) { return (int) strlen(table[i]); }\n";

  private static Path link(Path dir, String linker) throws Exception {
    Files.writeString(dir.resolve("p.c"), SOURCE);
    Path library = dir.resolve("libp-" + linker + ".so");
    Commands.run(List.of("cc", "-shared", "-fPIC", "-fuse-ld=" + linker, "-Wl,-z,pack-relative-relocs", "p.c", "-o",
        library.toString()), dir);
    return library;
  }

  private static ExportAudit.Report audit(Path dir, Path library) throws Exception {
    return ExportAudit.audit(library, library, List.of("length", "table"), List.of(), List.of(), dir,
        dir.resolve("audit.txt"));
  }

  @Test
  void moldsPackedRelocationsWithoutTheNeedFailTheAudit(@TempDir Path dir) throws Exception {
    Installed.assumeCompiler(Language.C);
    Installed.assumeOnPath("ld.mold", "packed relocations without GLIBC_ABI_DT_RELR");
    Path library = link(dir, "mold");
    assertTrue(ElfObject.read(library).hasDynamicTag(ElfObject.DT_RELR), "mold wrote DT_RELR");
    BuildFailureException e = assertThrows(BuildFailureException.class, () -> audit(dir, library));
    assertTrue(e.getMessage().contains("packed relative relocations (DT_RELR) without a need of GLIBC_ABI_DT_RELR"),
        e.getMessage());
    // The loader of this very host agrees: it refuses the library.
    Files.writeString(dir.resolve("main.c"), "#include <dlfcn.h>\n#include <stdio.h>\nint main(int c, char **v) {"
        + " void *h = dlopen(v[1], RTLD_NOW); if (!h) { puts(dlerror()); return 1; } return 0; }\n");
    Commands.run(List.of("cc", "main.c", "-o", "main", "-ldl"), dir);
    Process open = new ProcessBuilder(dir.resolve("main").toString(), library.toString()).redirectErrorStream(true)
        .start();
    String said = new String(open.getInputStream().readAllBytes());
    assertEquals(1, open.waitFor(), said);
    assertTrue(said.contains("DT_RELR without GLIBC_ABI_DT_RELR"), said);
  }

  @Test
  void bfdsPackedRelocationsWithTheNeedPass(@TempDir Path dir) throws Exception {
    Installed.assumeCompiler(Language.C);
    Path library = link(dir, "bfd");
    ElfObject elf = ElfObject.read(library);
    assertTrue(elf.hasDynamicTag(ElfObject.DT_RELR), "bfd wrote DT_RELR");
    assertTrue(elf.versionNeeds().stream().anyMatch(n -> n.version().equals("GLIBC_ABI_DT_RELR")));
    assertEquals(List.of("length", "table"), audit(dir, library).exports());
  }
}
