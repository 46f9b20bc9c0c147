package io.github.kernelarchive.toolchain;

import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.elf.ElfObject;
import io.github.kernelarchive.util.Platform;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The platform a build makes its library for, chosen once when the request is made and handed to
 * every stage, as zig's target triple or Bazel's platforms are: its classifier, GNU triple, ELF
 * machine, and where its tools and system files are. The build machine is just the default. A
 * stage that needs to know the machine asks this value, never {@code os.arch}.
 *
 * @param classifier {@code linux-aarch64}: the Maven classifier and the jar's folder
 * @param triple {@code aarch64-linux-gnu}: the cross tools' prefix
 * @param elfMachine {@link ElfObject#EM_AARCH64}: what every object and library must be
 * @param cross whether it differs from the build machine: tools by triple, tests under an emulator
 * @param root the platform's C library and loader for the emulator; null: Debian's cross sysroot
 */
public record TargetPlatform(String classifier, String triple, int elfMachine, boolean cross, Path root) {
  private record Known(String classifier, String triple, int machine, String qemu) {}

  private static final List<Known> KNOWN = List.of(
      new Known("linux-x86_64", "x86_64-linux-gnu", ElfObject.EM_X86_64, "qemu-x86_64-static"),
      new Known("linux-aarch64", "aarch64-linux-gnu", ElfObject.EM_AARCH64, "qemu-aarch64-static"));

  /** The build machine. */
  public static TargetPlatform host() {
    String classifier = Platform.classifier();
    return KNOWN.stream().filter(k -> k.classifier.equals(classifier)).findFirst()
        .map(k -> new TargetPlatform(k.classifier, k.triple, k.machine, false, null))
        .orElse(new TargetPlatform(classifier, "", ElfObject.hostMachine(), false, null));
  }

  /** A platform by classifier, as {@code kernel.platforms} names it. */
  public static TargetPlatform named(String classifier) throws BuildFailureException {
    TargetPlatform host = host();
    if (classifier.equals(host.classifier)) {
      return host;
    }
    Known known = KNOWN.stream().filter(k -> k.classifier.equals(classifier)).findFirst().orElseThrow(() ->
        new BuildFailureException("kernel.platforms names '" + classifier + "', which this plugin cannot build for:"
            + " use " + String.join(", ", KNOWN.stream().map(Known::classifier).toList()) + "."));
    return new TargetPlatform(known.classifier, known.triple, known.machine, true, null);
  }

  /** The same platform with its C library and loader at {@code sysroot} (a vendor toolchain's, say). */
  public TargetPlatform withSysroot(Path sysroot) {
    return new TargetPlatform(classifier, triple, elfMachine, cross, sysroot.toAbsolutePath());
  }

  /** The name of a GNU tool for this platform: {@code aarch64-linux-gnu-g++}; on the build machine, as given. */
  public String tool(String name) {
    return cross ? triple + "-" + name : name;
  }

  /** Debian's package with this platform's cross compilers. */
  public String compilerPackage() {
    return "g++-" + triple;
  }

  /**
   * Where this platform's C library and loader are, for an emulator's {@code -L}: the configured
   * one, else Debian's cross sysroot ({@code /usr/aarch64-linux-gnu}, from libc6-<arch>-cross); empty
   * on the build machine.
   */
  public Optional<Path> sysroot() {
    if (root != null) {
      return Optional.of(root);
    }
    return cross ? Optional.of(Path.of("/usr", triple)) : Optional.empty();
  }

  /**
   * How to run a program built for this platform: nothing on the build machine, else qemu-user
   * ({@code qemu-aarch64-static -L <sysroot>}, Debian's qemu-user-static).
   */
  public List<String> emulator() {
    return cross ? emulatorWith(sysroot().orElseThrow()) : List.of();
  }

  /** The emulator with {@code root} as the platform's file system ({@code -L}): a Python unpacked there, say. */
  public List<String> emulatorWith(Path root) {
    String qemu = KNOWN.stream().filter(k -> k.classifier.equals(classifier)).findFirst().map(Known::qemu)
        .orElseThrow(() -> new IllegalStateException("no emulator known for " + classifier));
    return List.of(qemu, "-L", root.toString());
  }

  @Override
  public String toString() {
    return classifier;
  }
}
