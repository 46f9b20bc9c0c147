package io.github.kernelarchive.glibc;

import io.github.kernelarchive.elf.ElfObject;

/**
 * What the redirects and replacements of {@link GlibcFloor} differ in between the machines glibc
 * supports here. x86_64's glibc began at 2.2.5 (some interfaces at 2.4); aarch64's at 2.17, where
 * every older interface has that version. Before 2.33 the headers called {@code __xstat} and its
 * family with the struct's version, 1 on x86_64 and 0 (the kernel's own struct) on aarch64. The
 * {@code getrandom} system call is 318 on x86_64 and 278 on aarch64.
 *
 * @param base the first version of the oldest interfaces ({@code 2.2.5})
 * @param later the version of the interfaces x86_64 added at 2.4 ({@code fstatat}'s {@code __fxstatat})
 * @param statVersion the first argument of {@code __xstat} and its family
 * @param getrandom the system call's number
 * @param jump how a redirect continues into the old version ({@code jmp %s@PLT}, {@code b %s})
 */
record GlibcAbi(String base, String later, int statVersion, int getrandom, String jump) {
  static final GlibcAbi X86_64 = new GlibcAbi("2.2.5", "2.4", 1, 318, "jmp %s@PLT");
  static final GlibcAbi AARCH64 = new GlibcAbi("2.17", "2.17", 0, 278, "b %s");

  /** The ABI of {@code machine}; an {@link IllegalArgumentException} naming it for any other. */
  static GlibcAbi of(int machine) {
    return switch (machine) {
      case ElfObject.EM_X86_64 -> X86_64;
      case ElfObject.EM_AARCH64 -> AARCH64;
      default -> throw new IllegalArgumentException("kernel.glibc redirects are made for x86_64 and aarch64 only, not"
          + " for " + ElfObject.machineName(machine));
    };
  }

  /** {@code GLIBC_2.2.5} for x86_64. */
  String baseVersion() {
    return "GLIBC_" + base;
  }

  /**
   * The version {@code version} (of x86_64's tables) has on this machine: aarch64 gives every
   * interface older than 2.17 that version.
   */
  String onThisMachine(String version) {
    if (this == X86_64 || !version.startsWith("GLIBC_")) {
      return version;
    }
    String number = version.substring("GLIBC_".length());
    return io.github.kernelarchive.elf.VersionFloor.VERSION_ORDER.compare(number, base) < 0 ? baseVersion() : version;
  }
}
