package io.github.kernelarchive.archive;

import io.github.kernelarchive.elf.ElfFormatException;
import io.github.kernelarchive.elf.ElfObject;
import io.github.kernelarchive.util.Hashing;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.HashSet;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.IntStream;

/**
 * Checks an archive against what it must contain before anything links or caches it: the
 * {@code ar} structure, exactly the planned members in order (a dropped duplicate basename or a
 * stray extra member is caught), each member byte-identical to its object, a symbol index that
 * lists every symbol each member defines, and every member a relocatable object for the expected
 * CPU.
 */
public final class ArchiveValidator {
  private final int expectedMachine;

  public ArchiveValidator(int expectedMachine) {
    this.expectedMachine = expectedMachine;
  }

  /** Returns normally when the archive is valid; otherwise the exception says what is wrong. */
  public void validate(Path archive, List<PlannedMember> planned) throws IOException, ArchiveInvalidException {
    ArReader.Contents contents;
    try {
      contents = ArReader.read(archive);
    } catch (ArFormatException e) {
      throw new ArchiveInvalidException(archive, e.getMessage());
    }
    List<ArMember> members = contents.members();
    for (int i = 0; i < Math.max(members.size(), planned.size()); i++) {
      if (i >= members.size()) {
        throw new ArchiveInvalidException(archive, "missing member '" + planned.get(i).name() + "' (position "
            + (i + 1) + " of " + planned.size() + ")");
      }
      if (i >= planned.size()) {
        throw new ArchiveInvalidException(archive, "extra member '" + members.get(i).name() + "' (position "
            + (i + 1) + "; only " + planned.size() + " planned)");
      }
      if (!members.get(i).name().equals(planned.get(i).name())) {
        throw new ArchiveInvalidException(archive, "member " + (i + 1) + " is '" + members.get(i).name()
            + "' but '" + planned.get(i).name() + "' was planned there (missing, extra or reordered member)");
      }
    }
    if (contents.index() == null) {
      throw new ArchiveInvalidException(archive, "no symbol index (the linker needs one outside --whole-archive)");
    }
    Map<Long, List<String>> indexed = ArReader.symbolsByMember(contents.index());
    // Members are independent: check them on all cores, then report the first problem in archive order.
    try (FileChannel channel = FileChannel.open(archive, StandardOpenOption.READ)) {
      String[] problems = new String[members.size()];
      IntStream.range(0, members.size()).parallel().forEach(i -> problems[i] = problemOf(channel,
          members.get(i), planned.get(i), i + 1, indexed.getOrDefault(members.get(i).headerOffset(), List.of())));
      for (String problem : problems) {
        if (problem != null) {
          throw new ArchiveInvalidException(archive, problem);
        }
      }
    }
  }

  /** What is wrong with one member, or {@code null}. */
  private String problemOf(FileChannel channel, ArMember member, PlannedMember plan, int position,
      List<String> indexedSymbols) {
    try {
      checkMember(channel, member, plan, position, indexedSymbols);
      return null;
    } catch (MemberProblem e) {
      return e.getMessage();
    } catch (IOException e) {
      return "member '" + member.name() + "' (position " + position + ") could not be read: " + e.getMessage();
    }
  }

  private static final class MemberProblem extends Exception {
    MemberProblem(String message) {
      super(message);
    }
  }

  private void checkMember(FileChannel channel, ArMember member, PlannedMember plan, int position,
      List<String> indexedSymbols) throws IOException, MemberProblem {
    String where = "member '" + member.name() + "' (position " + position + ")";
    ByteBuffer bytes;
    try {
      bytes = ArReader.map(channel, member);
    } catch (ArFormatException e) {
      throw new MemberProblem(e.getMessage());
    }
    MessageDigest digest = Hashing.sha256();
    digest.update(bytes.duplicate());
    String hash = HexFormat.of().formatHex(digest.digest());
    if (!hash.equals(plan.sha256())) {
      throw new MemberProblem(where + " differs from " + plan.object()
          + " (SHA-256 mismatch: damaged or stale)");
    }
    ElfObject elf;
    try {
      elf = ElfObject.parse(bytes);
    } catch (ElfFormatException e) {
      throw new MemberProblem(where + " is not a valid object: " + e.getMessage());
    }
    if (elf.type() != ElfObject.ET_REL) {
      throw new MemberProblem(where + " is not a relocatable object (ELF type " + elf.type() + ")");
    }
    if (elf.machine() != expectedMachine) {
      throw new MemberProblem(where + " is an " + ElfObject.machineName(elf.machine())
          + " object but this library is built for " + ElfObject.machineName(expectedMachine)
          + ". Rebuild " + plan.object() + " for " + ElfObject.machineName(expectedMachine) + " or remove it.");
    }
    Set<String> listed = new HashSet<>(indexedSymbols);
    for (String symbol : elf.definedExternalSymbols()) {
      if (!listed.contains(symbol)) {
        throw new MemberProblem("the symbol index does not list '" + symbol + "' defined by " + where);
      }
    }
  }
}
