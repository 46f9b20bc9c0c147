package io.github.kernelarchive.elf;

/** The bytes are not a well-formed ELF object; the message says what is wrong. */
public class ElfFormatException extends Exception {
  public ElfFormatException(String message) {
    super(message);
  }
}
