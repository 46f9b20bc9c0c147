package io.github.kernelarchive.mojo;

/**
 * {@code <toolchains><toolchain>}: the tools of one platform of {@code kernel.platforms}, for a
 * build whose platforms need different ones: a vendor's aarch64 compiler instead of Debian's
 * {@code aarch64-linux-gnu-g++}, another nvcc for one platform. What is left out keeps its usual
 * value (for another platform than the build machine's: the compilers by the platform's triple,
 * the sysroot {@code /usr/<triple>}). Bound by Maven.
 */
public class PlatformToolchain {
  /** The classifier this applies to, as {@code kernel.platforms} names it: {@code linux-aarch64}. */
  String platform;
  String cc;
  String cxx;
  String nvcc;
  String ar;
  String linker;
  String launcher;
  /** Where the platform's C library and loader are, for running its test programs under qemu ({@code -L}). */
  String sysroot;
}
