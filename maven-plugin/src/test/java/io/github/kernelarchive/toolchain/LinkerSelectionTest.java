package io.github.kernelarchive.toolchain;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.kernelarchive.common.ToolchainException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * kernel.linker against a PATH of stand-in linkers that answer {@code --version} as the real ones
 * do: auto takes the fastest one new enough, a name must be installed, a path must name an ld.<name>.
 */
class LinkerSelectionTest {
  @TempDir Path dir;

  private Path linker(String folder, String file, String versionLine) throws Exception {
    Path bin = Files.createDirectories(dir.resolve(folder));
    Path script = bin.resolve(file);
    Files.writeString(script, "#!/bin/sh\necho '" + versionLine + "'\n");
    Files.setPosixFilePermissions(script, PosixFilePermissions.fromString("rwxr-xr-x"));
    return script;
  }

  private Linker select(String configured, String... folders) throws ToolchainException {
    String path = String.join(":", java.util.Arrays.stream(folders).map(f -> dir.resolve(f).toString()).toList());
    return new LinkerSelection(new ExecutableFinder(path), new ProcessRunner(Map.of()), new ToolVersions(null),
        TargetPlatform.host())
        .select(configured);
  }

  @Test
  void autoTakesTheFastestLinkerNewEnough() throws Exception {
    linker("old", "ld.mold", "mold 1.0.3 (compatible with GNU ld)");
    linker("old", "ld.lld", "Debian LLD 14.0.6 (compatible with GNU linkers)");
    linker("old", "ld.gold", "GNU gold (GNU Binutils for Debian 2.40) 1.16");
    Linker lld = select("auto", "old");
    assertEquals("lld", lld.name(), "mold 1.0 is older than the private link needs");
    assertEquals(List.of("-fuse-ld=lld"), lld.driverFlags());
    assertTrue(lld.identity().endsWith("Debian LLD 14.0.6 (compatible with GNU linkers)"), lld.identity());

    linker("new", "ld.mold", "mold 1.10.1 (compatible with GNU ld)");
    assertEquals("mold", select(null, "new", "old").name());
    linker("gold-only", "ld.gold", "GNU gold (GNU Binutils for Debian 2.40) 1.16");
    assertEquals("gold", select("auto", "gold-only").name(), "gold's own version is the last number");
    Files.createDirectories(dir.resolve("empty"));
    Linker fallback = select("auto", "empty");
    assertEquals("default", fallback.name());
    assertEquals(List.of(), fallback.driverFlags());
  }

  @Test
  void aNamedLinkerMustBeInstalled() throws Exception {
    linker("bin", "ld.gold", "GNU gold (GNU Binutils for Debian 2.40) 1.16");
    assertEquals(List.of("-fuse-ld=gold"), select("gold", "bin").driverFlags());
    assertEquals("Linker 'lld' (kernel.linker) is not installed: ld.lld is not on PATH. Install it (Debian: lld) or"
        + " use kernel.linker=auto.", assertThrows(ToolchainException.class, () -> select("lld", "bin")).getMessage());
    assertEquals("kernel.linker 'ldd' is not a linker this plugin knows: use auto, bfd, gold, lld, mold, or the path"
        + " of an ld.<name> executable.", assertThrows(ToolchainException.class, () -> select("ldd", "bin")).getMessage());
  }

  @Test
  void aPathMustNameAnLdExecutable() throws Exception {
    Path mold = linker("opt/mold/libexec", "ld.mold", "mold 2.4.0 (compatible with GNU ld)");
    Linker byPath = select(mold.toString());
    assertEquals("mold", byPath.name());
    assertEquals(List.of("-B" + mold.getParent() + "/", "-fuse-ld=mold"), byPath.driverFlags());
    String notLd = assertThrows(ToolchainException.class,
        () -> select(linker("x", "mold", "mold 2.4.0").toString())).getMessage();
    assertTrue(notLd.endsWith("must be the absolute path of an ld.<name> executable (e.g."
        + " /opt/mold/libexec/mold/ld.mold): the C++ driver finds linkers by that name."), notLd);
    assertEquals("kernel.linker '" + dir.resolve("nowhere/ld.lld") + "' does not exist or is not executable.",
        assertThrows(ToolchainException.class, () -> select(dir.resolve("nowhere/ld.lld").toString())).getMessage());
  }
}
