package io.github.kernelarchive.elf;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.function.Supplier;

/**
 * What every archive member must be: a relocatable ELF object for the CPU the library is built
 * for. Checked on each object before it is archived, on each member of a cached archive and on
 * each cached object, with the same words everywhere.
 */
public final class ObjectRequirements {
  private final int expectedMachine;

  public ObjectRequirements(int expectedMachine) {
    this.expectedMachine = expectedMachine;
  }

  /**
   * Parses {@code bytes} and checks it.
   *
   * @param where how messages name it, e.g. "member 'k.o' (position 3)"; asked for only when there
   *     is a problem (an archive checks thousands of members, nearly all of which pass)
   * @param object the file to rebuild when it is for another CPU
   */
  public ElfObject check(ByteBuffer bytes, Supplier<String> where, Path object) throws MemberProblem {
    ElfObject elf;
    try {
      elf = ElfObject.parse(bytes);
    } catch (ElfFormatException e) {
      throw new MemberProblem(where.get() + " is not a valid object: " + e.getMessage());
    }
    if (elf.type() != ElfObject.ET_REL) {
      throw new MemberProblem(where.get() + " is not a relocatable object (ELF type " + elf.type() + ")");
    }
    if (elf.machine() != expectedMachine) {
      String expected = ElfObject.machineName(expectedMachine);
      throw new MemberProblem(where.get() + " is an " + ElfObject.machineName(elf.machine())
          + " object but this library is built for " + expected + ". Rebuild " + object + " for " + expected
          + " or remove it.");
    }
    return elf;
  }

  /** One member's problem, worded for the user. */
  public static final class MemberProblem extends Exception {
    public MemberProblem(String message) {
      super(message);
    }
  }
}
