package io.github.kernelarchive.link;

import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.toolchain.ProcessResult;
import io.github.kernelarchive.toolchain.ProcessRunner;
import io.github.kernelarchive.toolchain.Tool;
import io.github.kernelarchive.util.AtomicFiles;
import io.github.kernelarchive.util.ContentHashes;
import io.github.kernelarchive.util.Hashing;
import io.github.kernelarchive.util.KeyFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * CUDA device link for relocatable device code: one {@code nvcc -dlink} over every device object
 * (loose objects and whole archives), whose output joins the host link. Without it, a kernel that
 * calls a {@code __device__} function of another translation unit has unresolved device code.
 * Skipped when nvcc, its flags and every input are unchanged.
 */
public final class DeviceLinker {
  private static final String KEY_FORMAT = "kernel-archive device link key 1";

  private final Tool nvcc;
  private final ProcessRunner runner;
  private final Path outputDirectory;
  private final ContentHashes hashes;

  public DeviceLinker(Tool nvcc, ProcessRunner runner, Path outputDirectory, ContentHashes hashes) {
    this.nvcc = nvcc;
    this.runner = runner;
    this.outputDirectory = outputDirectory;
    this.hashes = hashes;
  }

  /** Returns the device-link object for {@code inputs} ({@code -gencode} flags as for compiling). */
  public Path link(String libraryName, List<String> gencodeFlags, List<Path> inputs)
      throws IOException, BuildFailureException {
    Path linkDirectory = Files.createDirectories(outputDirectory.resolve("link"));
    Path output = linkDirectory.resolve(libraryName + "_dlink.o");
    List<String> argv = new ArrayList<>(List.of(nvcc.command(), "-dlink"));
    argv.addAll(gencodeFlags);
    argv.addAll(List.of("-Xcompiler", "-fPIC"));
    inputs.forEach(input -> argv.add(input.toString()));

    List<String> parts = new ArrayList<>(List.of(KEY_FORMAT, nvcc.identity()));
    parts.addAll(argv);
    for (Path input : inputs) {
      parts.add(hashes.of(input).orElseThrow(() -> new IOException("cannot read " + input)));
    }
    String key = Hashing.ofStrings(parts);
    Path keyFile = linkDirectory.resolve(libraryName + "_dlink.key");
    if (KeyFile.upToDate(output, keyFile, key)) {
      return output;
    }
    Path temporary = linkDirectory.resolve("." + output.getFileName() + ".tmp.o");
    argv.addAll(List.of("-o", temporary.toString()));
    try {
      ProcessResult result = runner.run(argv, outputDirectory);
      if (!result.succeeded()) {
        throw new BuildFailureException("CUDA device link (nvcc -dlink) of " + libraryName + " failed:\n"
            + result.output().strip() + "\nEvery __device__ function called across translation units must be"
            + " defined once in a source compiled with <cuda><relocatableDeviceCode>true</relocatableDeviceCode>.");
      }
      AtomicFiles.publish(temporary, output);
    } finally {
      Files.deleteIfExists(temporary);
    }
    KeyFile.record(keyFile, key);
    return output;
  }
}
