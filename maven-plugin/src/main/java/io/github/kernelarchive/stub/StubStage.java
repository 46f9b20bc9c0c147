package io.github.kernelarchive.stub;

import io.github.kernelarchive.ar.ArFormatException;
import io.github.kernelarchive.ar.ArMember;
import io.github.kernelarchive.ar.ArReader;
import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.common.ToolchainException;
import io.github.kernelarchive.deps.StubRequest;
import io.github.kernelarchive.elf.ElfFormatException;
import io.github.kernelarchive.elf.ElfObject;
import io.github.kernelarchive.elf.ElfSymbol;
import io.github.kernelarchive.toolchain.ProcessResult;
import io.github.kernelarchive.toolchain.ProcessRunner;
import io.github.kernelarchive.toolchain.Tool;
import io.github.kernelarchive.util.AtomicFiles;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Before the link: for each runtime reached through a stub, the functions the library's objects
 * and archives leave undefined that the runtime defines get a trampoline ({@link StubSource}),
 * compiled into one object that is linked instead of the runtime, so the library has no
 * {@code NEEDED} on it. Data symbols cannot be forwarded by a trampoline and fail the build, as
 * do functions the user marked incompatible between the runtime's majors. The stubbed functions
 * are listed in {@code target/kernel/stubs-<name>.txt}.
 */
public final class StubStage {
  /** @param functions what the stub forwards, sorted */
  public record Result(String name, Path object, List<String> functions, List<String> sonames) {}

  private static final int STT_GNU_IFUNC = 10;

  private final Tool cc;
  private final ProcessRunner runner;
  private final Path outputDirectory;
  private final int machine;

  /** @param machine the ELF machine {@code cc} compiles for: the stub's trampolines are its assembly */
  public StubStage(Tool cc, ProcessRunner runner, Path outputDirectory, int machine) {
    this.machine = machine;
    this.cc = cc;
    this.runner = runner;
    this.outputDirectory = outputDirectory;
  }

  public Result build(StubRequest request, List<Path> objects, List<Path> archives)
      throws IOException, BuildFailureException, ToolchainException {
    Set<String> undefined = undefinedSymbols(objects, archives);
    ElfObject runtime = ElfObject.read(request.runtime());
    Map<String, Integer> offered = new TreeMap<>();
    for (ElfSymbol symbol : runtime.dynamicSymbols()) {
      if (symbol.isDefined() && symbol.isExternal() && symbol.isVisible() && !symbol.name().isEmpty()) {
        offered.putIfAbsent(symbol.name(), symbol.type());
      }
    }
    List<String> functions = new ArrayList<>();
    List<String> data = new ArrayList<>();
    for (String name : undefined) {
      Integer type = offered.get(name);
      if (type == null) {
        continue;
      }
      (type == ElfSymbol.TYPE_FUNCTION || type == STT_GNU_IFUNC ? functions : data).add(name);
    }
    if (!data.isEmpty()) {
      throw new BuildFailureException("The library refers to data symbol(s) " + String.join(", ", data) + " of "
          + request.runtime().getFileName() + " (dependency '" + request.name() + "'): a stub forwards functions"
          + " only, a variable cannot be reached before the runtime is loaded. Stop using them, or link the"
          + " dependency with <linkage>shared</linkage>.");
    }
    List<String> refused = functions.stream().filter(request.incompatible()::contains).toList();
    if (!refused.isEmpty()) {
      throw new BuildFailureException("The library calls " + String.join(", ", refused) + " of dependency '"
          + request.name() + "', marked <incompatible> (its signature differs between " + request.sonames()
          + "): one stub cannot serve both. Call it through a version check of your own (cudaRuntimeGetVersion,"
          + " then dlsym), or link the dependency with <linkage>shared</linkage>.");
    }
    List<String> sonames = request.sonames().isEmpty() ? List.of(sonameOf(runtime, request.runtime())) : request.sonames();
    Path folder = outputDirectory.resolve("stubs");
    Files.createDirectories(folder);
    Map<String, ReturnKinds.Kind> kinds = ReturnKinds.of(request.headers(), functions);
    StringBuilder list = new StringBuilder();
    for (String function : functions) {
      list.append(function).append(switch (kinds.get(function)) {
        case VALUE -> "";
        case POINTER -> "\treturns NULL without the runtime";
        case STRING -> "\treturns a message without the runtime";
      }).append('\n');
    }
    AtomicFiles.writeIfChanged(outputDirectory.resolve("stubs-" + request.name() + ".txt"), list.toString().getBytes(StandardCharsets.UTF_8));
    // The compiler's identity closes the source, so the object is rebuilt when either changes.
    String source = StubSource.generate(request.name(), sonames, functions, kinds, request.missingResult(), machine)
        + "/* compiled by " + cc.identity().lines().findFirst().orElse("") + " */\n";
    Path sourceFile = folder.resolve(request.name() + "-stub.c");
    Path object = folder.resolve(request.name() + "-stub.o");
    boolean current = Files.isRegularFile(object) && Files.isRegularFile(sourceFile)
        && Files.readString(sourceFile, StandardCharsets.UTF_8).equals(source);
    if (!current) {
      AtomicFiles.write(sourceFile, source.getBytes(StandardCharsets.UTF_8));
      Path temporary = AtomicFiles.temporarySibling(object);
      try {
        ProcessResult result = runner.run(List.of(cc.command(), "-c", "-fPIC", "-O1", "-o", temporary.toString(),
            sourceFile.toString()), folder);
        if (!result.succeeded()) {
          throw new ToolchainException("Compiling the stub for '" + request.name() + "' (" + sourceFile + ") failed:\n"
              + result.output().strip());
        }
        AtomicFiles.publish(temporary, object);
      } finally {
        Files.deleteIfExists(temporary);
      }
    }
    return new Result(request.name(), object, functions, sonames);
  }

  private static String sonameOf(ElfObject runtime, Path file) {
    for (ElfObject.DynamicEntry entry : runtime.dynamicEntries()) {
      if (entry.tag() == ElfObject.DT_SONAME) {
        return entry.value();
      }
    }
    return file.getFileName().toString();
  }

  /** Global symbols some object or archive member refers to without defining. */
  private static Set<String> undefinedSymbols(List<Path> objects, List<Path> archives) throws IOException {
    Set<String> undefined = new TreeSet<>();
    for (Path object : objects) {
      collect(ElfObject.read(object), undefined);
    }
    for (Path archive : archives) {
      try (FileChannel channel = FileChannel.open(archive, StandardOpenOption.READ)) {
        for (ArMember member : ArReader.read(channel).members()) {
          try {
            collect(ElfObject.parse(ArReader.map(channel, member)), undefined);
          } catch (ElfFormatException e) {
            throw new IOException(archive + "(" + member.name() + ") is not a valid object: " + e.getMessage(), e);
          }
        }
      } catch (ArFormatException e) {
        throw new IOException(archive + ": " + e.getMessage(), e);
      }
    }
    return undefined;
  }

  private static void collect(ElfObject elf, Set<String> undefined) {
    for (ElfSymbol symbol : elf.symbols()) {
      if (!symbol.isDefined() && symbol.isExternal() && !symbol.name().isEmpty()) {
        undefined.add(symbol.name());
      }
    }
  }
}
