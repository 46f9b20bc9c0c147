package io.github.kernelarchive.bundle;

import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.compile.GpuArchitectures;
import io.github.kernelarchive.util.AtomicFiles;
import io.github.kernelarchive.util.ContentHashes;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The kernel libraries this build links privately, as Maven resolved their platform bundles:
 * each is unpacked into {@code target/kernel/deps/<groupId>.<artifactId>/} once per content (a
 * bundle of unchanged bytes is not unpacked again, and the folder's name does not change with the
 * version, so compile commands that include its headers stay the same), then checked: its
 * metadata format, its platform, its CUDA targets against this build's, and no header path
 * shipped by two of them. Its archives go to the link like this build's own.
 */
public final class KernelDependencies {
  /** An archive of a dependency, linked whole and private. */
  public record Archive(String name, Path file, String sha256, boolean deviceCode) {}

  /**
   * @param includeDirectories each dependency's {@code include/}, nearest first
   * @param archives what is linked privately
   * @param sharedLibraries the shared libraries of dependencies linked shared, copied beside this build's library
   * @param cuda whether some dependency linked privately holds CUDA objects (then the CUDA runtime is linked)
   * @param linkFlags what the dependencies' own links needed
   */
  public record Outcome(List<Path> includeDirectories, List<Archive> archives, List<Path> sharedLibraries,
      boolean cuda, List<String> linkFlags) {
    public static final Outcome NONE = new Outcome(List.of(), List.of(), List.of(), false, List.of());
  }

  private KernelDependencies() {}

  /**
   * @param platform this build's platform classifier
   * @param cudaArchs this build's CUDA targets; empty when it compiles no CUDA
   */
  public static Outcome unpack(List<KernelDependency> dependencies, Path outputDirectory, String platform,
      String cudaArchs, ContentHashes hashes) throws IOException, BuildFailureException {
    if (dependencies.isEmpty()) {
      return Outcome.NONE;
    }
    List<Path> includes = new ArrayList<>();
    List<Archive> archives = new ArrayList<>();
    List<Path> sharedLibraries = new ArrayList<>();
    List<String> linkFlags = new ArrayList<>();
    Map<String, String> headerOwners = new HashMap<>();
    boolean cuda = false;
    Path depsFolder = outputDirectory.resolve("deps");
    for (KernelDependency dependency : dependencies) {
      Path folder = depsFolder.resolve(dependency.folder());
      BundleMetadata metadata;
      try {
        metadata = unpacked(dependency, folder, hashes);
      } catch (BundleException e) {
        throw new BuildFailureException("Kernel dependency " + dependency.coordinates() + ": " + e.getMessage());
      }
      if (!metadata.platform().equals(platform)) {
        throw new BuildFailureException("Kernel dependency " + dependency.coordinates() + " was built for "
            + metadata.platform() + " (" + dependency.bundle() + "); this build is for " + platform + ".");
      }
      checkCudaTargets(dependency, metadata, cudaArchs);
      Path include = folder.resolve("include");
      if (Files.isDirectory(include)) {
        claimHeaders(dependency, include, headerOwners);
        includes.add(include);
      }
      if (dependency.shared()) {
        // Its own library, already linked with its dependencies inside: found beside ours at run time.
        Path library = held(dependency, folder, "lib" + metadata.library() + ".so");
        Path beside = outputDirectory.resolve(library.getFileName());
        if (!Files.isRegularFile(beside) || Files.mismatch(library, beside) != -1) {
          Path temporary = AtomicFiles.temporarySibling(beside);
          try {
            Files.copy(library, temporary, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            AtomicFiles.publish(temporary, beside);
          } finally {
            Files.deleteIfExists(temporary);
          }
        }
        sharedLibraries.add(beside);
        continue;
      }
      for (String name : metadata.archives()) {
        Path file = held(dependency, folder, name);
        archives.add(new Archive(name, file, sha256(hashes, file), metadata.relocatableDeviceCode()));
      }
      cuda |= !metadata.cudaArchs().isEmpty();
      linkFlags.addAll(metadata.linkFlags());
    }
    return new Outcome(includes, archives, sharedLibraries, cuda, linkFlags);
  }

  /** A file under {@code lib/} of the unpacked bundle, which its metadata says it holds. */
  private static Path held(KernelDependency dependency, Path folder, String name) throws BuildFailureException {
    Path file = folder.resolve("lib").resolve(name);
    if (!Files.isRegularFile(file)) {
      throw new BuildFailureException("Kernel dependency " + dependency.coordinates() + ": its metadata names " + name
          + ", which " + dependency.bundle() + " does not hold. The bundle is damaged: build or fetch it again.");
    }
    return file;
  }

  /** The dependency's metadata, unpacking the bundle unless the folder already holds these exact bytes. */
  private static BundleMetadata unpacked(KernelDependency dependency, Path folder, ContentHashes hashes)
      throws IOException, BundleException {
    if (!Files.isRegularFile(dependency.bundle())) {
      throw new BundleException(dependency.bundle() + " does not exist.");
    }
    String sha256 = sha256(hashes, dependency.bundle());
    Path marker = folder.resolveSibling(folder.getFileName() + ".sha256");
    Path metadata = folder.resolve(BundleMetadata.FILE);
    if (Files.isRegularFile(marker) && Files.readString(marker, StandardCharsets.UTF_8).equals(sha256)
        && Files.isRegularFile(metadata)) {
      return BundleMetadata.parse(Files.readAllBytes(metadata), dependency.bundle().toString());
    }
    Files.deleteIfExists(marker);
    BundleMetadata read = BundleReader.unpack(dependency.bundle(), folder);
    AtomicFiles.write(marker, sha256.getBytes(StandardCharsets.UTF_8));
    return read;
  }

  /**
   * Through the build's content hashes: a file whose size and time are those it was hashed at is
   * not read again, so an unchanged dependency costs a no-op build a stat, not a read of its archives.
   */
  private static String sha256(ContentHashes hashes, Path file) throws IOException {
    return hashes.of(file).orElseThrow(() -> new IOException("cannot read " + file));
  }

  /** This build's CUDA targets must all have code in the dependency (when both have CUDA code). */
  private static void checkCudaTargets(KernelDependency dependency, BundleMetadata metadata, String cudaArchs)
      throws BuildFailureException {
    if (cudaArchs.isBlank() || metadata.cudaArchs().isBlank()) {
      return;
    }
    Set<String> ours = GpuArchitectures.cudaTargets(cudaArchs);
    Set<String> theirs = GpuArchitectures.cudaTargets(metadata.cudaArchs());
    if (!theirs.containsAll(ours)) {
      throw new BuildFailureException("Kernel dependency " + dependency.coordinates() + " has device code for "
          + metadata.cudaArchs() + ", which does not cover this build's kernel.cuda.archs " + cudaArchs
          + ". Build the dependency for these targets too, or narrow <archs>.");
    }
  }

  /** Fails when a header path of this dependency is shipped by an earlier one too: which one a source gets would depend on order. */
  private static void claimHeaders(KernelDependency dependency, Path include, Map<String, String> owners)
      throws IOException, BuildFailureException {
    try (Stream<Path> files = Files.walk(include)) {
      for (Path header : (Iterable<Path>) files.filter(Files::isRegularFile).sorted()::iterator) {
        String relative = include.relativize(header).toString();
        String earlier = owners.putIfAbsent(relative, dependency.coordinates());
        if (earlier != null) {
          throw new BuildFailureException("Kernel dependencies " + earlier + " and " + dependency.coordinates()
              + " both ship the header " + relative + ": a source including it would get whichever comes first."
              + " Rename it in one of them, or drop one dependency.");
        }
      }
    }
  }
}
