package io.github.kernelarchive.glibc;

import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.common.ToolchainException;
import io.github.kernelarchive.elf.ElfObject;
import io.github.kernelarchive.elf.VersionFloor;
import io.github.kernelarchive.toolchain.ProcessResult;
import io.github.kernelarchive.toolchain.ProcessRunner;
import io.github.kernelarchive.toolchain.Tool;
import io.github.kernelarchive.util.AtomicFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Makes a linked file load on an older glibc ({@code kernel.glibc}): reads what it imports,
 * compiles the redirects and replacements it needs ({@link RedirectPlan}, {@link RedirectSource})
 * for the linker to link again with, and checks the result. Works on any build host, whatever
 * its own glibc, because the host's libraries still define every old version.
 */
public final class GlibcFloor {
  /**
   * @param linkArguments what the link adds: the redirect object, then the stand-ins of former libraries
   * @param plan what was redirected, replaced and added
   */
  public record Redirection(List<String> linkArguments, RedirectPlan plan) {}

  /** Links the file again with {@code extraArguments} (the redirect object and stand-ins) added. */
  @FunctionalInterface
  public interface Relink {
    void link(List<String> extraArguments) throws IOException, ToolchainException, BuildFailureException;
  }

  /** Which input files reference a symbol: asked only to word an error. */
  @FunctionalInterface
  public interface Referrers {
    List<String> of(List<String> symbols) throws IOException, ToolchainException;
  }

  private final GlibcTarget target;
  private final Tool cCompiler;
  private final ProcessRunner runner;
  private final Path workDirectory;
  private final GlibcAbi abi;
  private final MovedSymbols moved;
  private HostGlibc host;

  /**
   * @param workDirectory where the redirect sources and objects are written
   * @param machine the ELF machine {@code cCompiler} builds for (x86_64 or aarch64)
   */
  public GlibcFloor(GlibcTarget target, Tool cCompiler, ProcessRunner runner, Path workDirectory, int machine) {
    this.abi = GlibcAbi.of(machine);
    this.moved = MovedSymbols.load(abi);
    this.target = target;
    this.cCompiler = cCompiler;
    this.runner = runner;
    this.workDirectory = workDirectory;
  }

  public GlibcTarget target() {
    return target;
  }

  /**
   * Makes {@code linked} load on the target: plans its redirects, links it again through
   * {@code relink}, and plans again on the result, since what a replacement calls may need
   * redirects of its own; then {@link #verify verifies} it.
   *
   * @return what was done; null when the file needed nothing
   */
  public RedirectPlan hold(Path linked, String name, Relink relink, Referrers referrers)
      throws IOException, ToolchainException, BuildFailureException {
    RedirectPlan applied = null;
    for (int round = 0; round < 4; round++) {
      Redirection next = redirect(linked, name, referrers, applied);
      if (next.linkArguments().isEmpty()) {
        break;
      }
      relink.link(next.linkArguments());
      applied = next.plan();
    }
    verify(linked, name);
    return applied;
  }

  /**
   * What {@code linked} needs to be linked again with; no arguments when it already loads on the target.
   *
   * @param name the file's published name, for paths and messages
   * @param earlier what the file was linked with already (its imports then no longer show it), or null
   * @throws BuildFailureException when an import has no version at the target and no replacement
   */
  private Redirection redirect(Path linked, String name, Referrers referrers, RedirectPlan earlier)
      throws IOException, ToolchainException, BuildFailureException {
    Files.createDirectories(workDirectory);
    if (host == null) {
      host = HostGlibc.of(cCompiler, runner, workDirectory);
    }
    RedirectPlan found = RedirectPlan.of(ElfObject.read(linked), target, host, moved);
    if (!found.unmet().isEmpty()) {
      List<String> symbols = found.unmet().stream().map(u -> u.substring(0, u.indexOf(' '))).toList();
      List<String> from = referrers.of(symbols);
      throw new BuildFailureException(name + " cannot load on " + target + ": " + String.join(", ", found.unmet())
          + (found.unmet().size() == 1 ? " has" : " have") + " no version at or below " + target.version()
          + (from.isEmpty() ? "" : ", referenced by " + String.join(", ", from)) + ". Call an interface that "
          + target + " has, or raise kernel.glibc to the release that added it.");
    }
    if (found.changesNothing()) {
      return new Redirection(List.of(), found);
    }
    RedirectPlan plan = earlier == null ? found : earlier.plus(found);
    Path source = workDirectory.resolve(name + ".glibc.c");
    Path object = workDirectory.resolve(name + ".glibc.o");
    AtomicFiles.write(source, RedirectSource.of(plan, target, host, abi).getBytes(StandardCharsets.UTF_8));
    compile(List.of("-O2", "-fPIC", "-fno-stack-protector", "-c", source.toString()), object);
    List<String> arguments = new ArrayList<>(List.of(object.toString()));
    for (String library : plan.needed()) {
      // Before libc on the line (the driver adds -lc last), so the linker binds to the stand-in.
      arguments.add(stub(library, plan.redirects().stream().filter(r -> r.from().equals(library)).toList(), name)
          .toString());
    }
    return new Redirection(arguments, plan);
  }

  /** Links the {@link FormerLibraryStub} of {@code library}: {@code <work>/<name>.stubs/libpthread.so.0}. */
  private Path stub(String library, List<RedirectPlan.Redirect> redirects, String name)
      throws IOException, ToolchainException {
    Path directory = workDirectory.resolve(name + ".stubs");
    Files.createDirectories(directory);
    Path source = directory.resolve(library + ".s");
    Path script = directory.resolve(library + ".map");
    AtomicFiles.write(source, FormerLibraryStub.assembly(redirects).getBytes(StandardCharsets.UTF_8));
    AtomicFiles.write(script, FormerLibraryStub.versionScript(redirects).getBytes(StandardCharsets.UTF_8));
    Path stub = directory.resolve(library);
    compile(List.of("-shared", "-nostdlib", "-Wl,-soname," + library, "-Wl,--version-script=" + script,
        source.toString()), stub);
    return stub;
  }

  /** Runs the C compiler into a temporary file, renamed to {@code output} once it succeeded. */
  private void compile(List<String> arguments, Path output) throws IOException, ToolchainException {
    Path temporary = AtomicFiles.temporarySibling(output);
    try {
      List<String> command = new ArrayList<>(List.of(cCompiler.command()));
      command.addAll(arguments);
      command.addAll(List.of("-o", temporary.toString()));
      ProcessResult result = runner.run(command, workDirectory);
      if (!result.succeeded()) {
        throw new ToolchainException("Building " + output + " for kernel.glibc failed:\n" + result.output().strip());
      }
      AtomicFiles.publish(temporary, output);
    } finally {
      Files.deleteIfExists(temporary);
    }
  }

  /**
   * Refuses, before the link, a flag asking for what the target's loader cannot read: packed
   * relative relocations. Whatever the linker then does with it (bfd and mold write them, lld 14
   * ignores the option), the answer is the same; {@link #verify} still reads the result's tag.
   */
  public void refuseFlags(String name, List<String> linkFlags) throws BuildFailureException {
    for (String flag : linkFlags) {
      if (flag.contains("pack-relative-relocs") && !flag.contains("nopack-relative-relocs")) {
        throw new BuildFailureException(name + " is linked with '" + flag + "' (packed relative relocations,"
            + " DT_RELR), which glibc's loader reads only from 2.36 on, and " + target + " is older: remove -z"
            + " pack-relative-relocs from the link flags.");
      }
    }
  }

  /** Fails when {@code linked} still needs a glibc version above the target, naming the imports. */
  public void verify(Path linked, String name) throws IOException, BuildFailureException {
    ElfObject elf = ElfObject.read(linked);
    // Not a symbol version but a loader feature (packed relative relocations, glibc 2.36). Asked by
    // the tag itself: bfd adds the version need, mold 1.10 writes DT_RELR without it.
    if (elf.hasDynamicTag(ElfObject.DT_RELR)
        || elf.versionNeeds().stream().anyMatch(n -> n.version().equals("GLIBC_ABI_DT_RELR"))) {
      throw new BuildFailureException(name + " has packed relative relocations (DT_RELR, GLIBC_ABI_DT_RELR), which"
          + " glibc's loader reads only from 2.36 on, and " + target + " is older: remove -z pack-relative-relocs"
          + " from the link flags.");
    }
    for (VersionFloor floor : VersionFloor.of(elf)) {
      if (floor.family().equals("GLIBC") && !target.admits(floor.version())) {
        throw new BuildFailureException(name + " still needs " + floor.describe(8) + " after its redirects to "
            + target + ". Report this with the symbols named; meanwhile raise kernel.glibc to " + floor.version() + ".");
      }
    }
  }
}
