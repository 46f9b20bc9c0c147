package io.github.kernelarchive.glibc;

import io.github.kernelarchive.common.ToolchainException;
import io.github.kernelarchive.elf.ElfObject;
import io.github.kernelarchive.elf.ElfSymbol;
import io.github.kernelarchive.elf.VersionFloor;
import io.github.kernelarchive.toolchain.ProcessResult;
import io.github.kernelarchive.toolchain.ProcessRunner;
import io.github.kernelarchive.toolchain.Tool;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Every version of every symbol the build host's glibc libraries define, read from their dynamic
 * symbol tables. glibc keeps each old version of a symbol when it adds a new one, so the host's
 * own libraries tell which version was the default at any older release: the newest one not
 * above it. Which file held it then is {@link MovedSymbols}' question.
 */
public final class HostGlibc {
  /** The libraries of glibc a library may import from, by SONAME. */
  public static final List<String> LIBRARIES = List.of("libc.so.6", "libm.so.6", "libdl.so.2", "libpthread.so.0",
      "librt.so.1", "libutil.so.1", "libanl.so.1");
  private static final int STT_GNU_IFUNC = 10;

  /**
   * @param version {@code GLIBC_2.2.5}
   * @param library the SONAME of the host library that defines it
   * @param code a function (or an IFUNC), which a trampoline can reach; else data
   * @param isDefault the version a plain reference binds to ({@code @@} in {@code nm -D})
   */
  public record Definition(String symbol, String version, String library, boolean code, boolean isDefault) {}

  private final Map<String, List<Definition>> bySymbol;

  private HostGlibc(Map<String, List<Definition>> bySymbol) {
    this.bySymbol = bySymbol;
  }

  /** The libraries where the C compiler {@code driver} links them from ({@code -print-file-name}). */
  public static HostGlibc of(Tool driver, ProcessRunner runner, Path workingDirectory)
      throws IOException, ToolchainException {
    Map<String, Path> found = new LinkedHashMap<>();
    for (String soname : LIBRARIES) {
      ProcessResult result = runner.run(List.of(driver.command(), "-print-file-name=" + soname), workingDirectory);
      Path file = Path.of(result.output().strip());
      if (result.succeeded() && file.isAbsolute() && Files.isRegularFile(file)) {
        found.put(soname, file);
      }
    }
    if (!found.containsKey("libc.so.6")) {
      throw new ToolchainException(driver.command() + " -print-file-name=libc.so.6 names no file: kernel.glibc needs"
          + " the build host's glibc (libc6-dev on Debian) to read its symbol versions from.");
    }
    return read(found);
  }

  /** @param libraries SONAME to file */
  public static HostGlibc read(Map<String, Path> libraries) throws IOException {
    Map<String, List<Definition>> bySymbol = new HashMap<>();
    for (Map.Entry<String, Path> library : libraries.entrySet()) {
      ElfObject elf = ElfObject.read(library.getValue());
      for (ElfSymbol symbol : elf.dynamicSymbols()) {
        String version = symbol.version().replaceFirst("^@@?", "");
        if (!symbol.isDefined() || !isNumbered(version) || symbol.isVersionNode()) {
          continue;
        }
        boolean code = symbol.type() == ElfSymbol.TYPE_FUNCTION || symbol.type() == STT_GNU_IFUNC;
        bySymbol.computeIfAbsent(symbol.name(), s -> new ArrayList<>())
            .add(new Definition(symbol.name(), version, library.getKey(), code, symbol.version().startsWith("@@")));
      }
    }
    return new HostGlibc(bySymbol);
  }

  /** The version that was the default at {@code target}: the newest not above it. */
  public Optional<Definition> defaultAt(String symbol, GlibcTarget target) {
    return bySymbol.getOrDefault(symbol, List.of()).stream()
        .filter(d -> target.admits(d.version()))
        .max(Comparator.comparing(d -> d.version().substring("GLIBC_".length()), VersionFloor.VERSION_ORDER));
  }

  /** Whether a plain reference to {@code symbol} binds to {@code version} here; false when this glibc lacks it. */
  public boolean isDefault(String symbol, String version) {
    return bySymbol.getOrDefault(symbol, List.of()).stream().anyMatch(d -> d.isDefault() && d.version().equals(version));
  }

  /** {@code GLIBC_2.N}: not {@code GLIBC_PRIVATE} nor a node of another family. */
  static boolean isNumbered(String version) {
    return version.startsWith("GLIBC_") && version.length() > 6 && Character.isDigit(version.charAt(6));
  }
}
