package io.github.kernelarchive.compile;

import io.github.kernelarchive.scan.Language;
import io.github.kernelarchive.scan.SourceFile;
import io.github.kernelarchive.scan.SourceSet;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds the argument vector of each compile. Objects mirror the source tree under
 * {@code objectRoot/<unit>/} and keep the source extension ({@code k.cu.o}, {@code k.cpp.o}), so
 * sources that differ only in extension never share an object.
 */
public final class CompileCommandFactory {
  private final CompileOptions options;
  private final Path objectRoot;

  public CompileCommandFactory(CompileOptions options, Path objectRoot) {
    this.options = options;
    this.objectRoot = objectRoot;
  }

  public Path objectFor(SourceFile source) {
    return objectRoot.resolve(source.unit()).resolve(source.relativePath() + ".o");
  }

  public CompileJob create(SourceFile source, CompilerSetup setup) {
    Path object = objectFor(source);
    Path depfile = object.resolveSibling(object.getFileName() + ".d");
    List<String> argv = new ArrayList<>(setup.commandPrefix());
    argv.add("-c");
    argv.addAll(languageDefaults(source));
    for (Path include : options.includeDirectories()) {
      argv.add("-I" + include);
    }
    for (String define : options.defines()) {
      argv.add("-D" + define);
    }
    argv.addAll(userFlags(source.language()));
    argv.addAll(List.of("-MD", "-MF", depfile.toString(), "-o", object.toString(), source.path().toString()));
    return new CompileJob(source, object, depfile, setup.launcher(), argv, setup.environment(), setup.identity(),
        options.sourceRoot().toString(), objectRoot.toString());
  }

  /**
   * Flags every object needs: position independence for the shared library; hidden symbols for
   * archive members when archives are private. Host sources keep default visibility: the version
   * script made from {@code <exports>} decides what the library exports, so a plain C function
   * named there is exported without an attribute in its source.
   */
  private List<String> languageDefaults(SourceFile source) {
    Language language = source.language();
    List<String> hostFlags = new ArrayList<>();
    hostFlags.add("-fPIC");
    if (options.hiddenVisibility() && !source.unit().equals(SourceSet.HOST)) {
      hostFlags.add("-fvisibility=hidden");
    }
    hostFlags.add("-ffile-prefix-map=" + options.sourceRoot() + "=.");
    if (language != Language.CUDA) {
      return hostFlags;
    }
    List<String> nvcc = new ArrayList<>();
    if (options.relocatableDeviceCode()) {
      nvcc.add("-rdc=true");
    }
    // nvcc hands host-compiler flags on through -Xcompiler.
    for (String flag : hostFlags) {
      nvcc.add("-Xcompiler");
      nvcc.add(flag);
    }
    return nvcc;
  }

  private List<String> userFlags(Language language) {
    return switch (language) {
      case C -> options.cFlags();
      case CXX -> options.cxxFlags();
      case CUDA -> options.cudaFlags();
      case HIP -> options.hipFlags();
    };
  }
}
