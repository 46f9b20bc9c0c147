package io.github.kernelarchive.archive;

import io.github.kernelarchive.ar.ArFormatException;
import io.github.kernelarchive.ar.ArMember;
import io.github.kernelarchive.ar.ArReader;
import io.github.kernelarchive.ar.ArchiveLayoutCheck;
import io.github.kernelarchive.ar.ArchiveDigest;
import io.github.kernelarchive.elf.ElfObject;
import io.github.kernelarchive.elf.ObjectRequirements;
import io.github.kernelarchive.util.Hashing;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.util.ArrayList;
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
 * CPU ({@link ObjectRequirements}).
 *
 * <p>An archive at rest (a cache entry) gets all of it, every member hashed. One this build has
 * just written gets {@link #validateWritten}: the members' bytes, types and symbols were checked
 * on the way in (inspected once, checksummed again as they were copied), so what remains is to
 * read the written structure back and compare it with the plan.
 */
public final class ArchiveValidator {
  private final ObjectRequirements requirements;

  public ArchiveValidator(int expectedMachine) {
    this.requirements = new ObjectRequirements(expectedMachine);
  }

  /**
   * Returns normally when the archive is valid; otherwise the exception says what is wrong.
   *
   * @return the table of contents read (for {@link ArchiveDigest}, which then reads no header again)
   */
  public ArReader.Contents validate(Path archive, List<PlannedMember> planned)
      throws IOException, ArchiveInvalidException {
    ArReader.Contents contents = readStructure(archive, planned.stream().map(PlannedMember::name).toList());
    List<ArMember> members = contents.members();
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
    return contents;
  }

  /**
   * For an archive just written from {@code members}, whose bytes were checked while they were
   * copied: the structure as read back from disk, each member's name, position and size, and an
   * index that lists every symbol each member defines.
   */
  public void validateWritten(Path archive, List<InspectedObject> written)
      throws IOException, ArchiveInvalidException {
    long[] sizes = new long[written.size()];
    List<String> names = new ArrayList<>(written.size());
    List<List<String>> symbols = new ArrayList<>(written.size());
    for (int i = 0; i < sizes.length; i++) {
      sizes[i] = written.get(i).size();
      names.add(written.get(i).name());
      symbols.add(written.get(i).symbols());
    }
    if (ArchiveLayoutCheck.matches(archive, names, sizes, symbols)) {
      return;
    }
    // Not the archive planned, or not laid out as the writer lays one out: the full reading says how.
    ArReader.Contents contents = readStructure(archive, written.stream().map(InspectedObject::name).toList());
    Map<Long, List<String>> indexed = ArReader.symbolsByMember(contents.index());
    for (int i = 0; i < written.size(); i++) {
      ArMember member = contents.members().get(i);
      InspectedObject object = written.get(i);
      if (member.size() != object.size()) {
        throw new ArchiveInvalidException(archive, where(member, i) + " holds " + member.size() + " bytes but "
            + object.object() + " has " + object.size());
      }
      List<String> listed = indexed.getOrDefault(member.headerOffset(), List.of());
      // The writer lists each member's symbols in the order it found them: equal lists need no set.
      String unlisted = listed.equals(object.symbols()) ? null : firstUnlisted(object.symbols(), listed);
      if (unlisted != null) {
        throw new ArchiveInvalidException(archive, "the symbol index does not list '" + unlisted + "' defined by "
            + where(member, i));
      }
    }
  }

  /** How a problem names the member at {@code index}; built only for a problem (thousands of members pass). */
  private static String where(ArMember member, int index) {
    return "member '" + member.name() + "' (position " + (index + 1) + ")";
  }

  /** The archive's table of contents, checked to hold exactly {@code names} in order and an index. */
  private static ArReader.Contents readStructure(Path archive, List<String> names)
      throws IOException, ArchiveInvalidException {
    ArReader.Contents contents;
    try {
      contents = ArReader.read(archive);
    } catch (ArFormatException e) {
      throw new ArchiveInvalidException(archive, e.getMessage());
    }
    List<ArMember> members = contents.members();
    for (int i = 0; i < Math.max(members.size(), names.size()); i++) {
      if (i >= members.size()) {
        throw new ArchiveInvalidException(archive, "missing member '" + names.get(i) + "' (position "
            + (i + 1) + " of " + names.size() + ")");
      }
      if (i >= names.size()) {
        throw new ArchiveInvalidException(archive, "extra member '" + members.get(i).name() + "' (position "
            + (i + 1) + "; only " + names.size() + " planned)");
      }
      if (!members.get(i).name().equals(names.get(i))) {
        throw new ArchiveInvalidException(archive, "member " + (i + 1) + " is '" + members.get(i).name()
            + "' but '" + names.get(i) + "' was planned there (missing, extra or reordered member)");
      }
    }
    if (contents.index() == null) {
      throw new ArchiveInvalidException(archive, "no symbol index (the linker needs one outside --whole-archive)");
    }
    return contents;
  }

  /** What is wrong with one member, or {@code null}. */
  private String problemOf(FileChannel channel, ArMember member, PlannedMember plan, int position,
      List<String> indexedSymbols) {
    try {
      checkMember(channel, member, plan, position, indexedSymbols);
      return null;
    } catch (ObjectRequirements.MemberProblem e) {
      return e.getMessage();
    } catch (IOException e) {
      return "member '" + member.name() + "' (position " + position + ") could not be read: " + e.getMessage();
    }
  }

  private void checkMember(FileChannel channel, ArMember member, PlannedMember plan, int position,
      List<String> indexedSymbols) throws IOException, ObjectRequirements.MemberProblem {
    String where = "member '" + member.name() + "' (position " + position + ")";
    ByteBuffer bytes;
    try {
      bytes = ArReader.map(channel, member);
    } catch (ArFormatException e) {
      throw new ObjectRequirements.MemberProblem(e.getMessage());
    }
    MessageDigest digest = Hashing.sha256();
    digest.update(bytes.duplicate());
    String hash = HexFormat.of().formatHex(digest.digest());
    if (!hash.equals(plan.sha256())) {
      throw new ObjectRequirements.MemberProblem(where + " differs from " + plan.object()
          + " (SHA-256 mismatch: damaged or stale)");
    }
    ElfObject elf = requirements.check(bytes, () -> where, plan.object());
    String unlisted = firstUnlisted(elf.definedExternalSymbols(), indexedSymbols);
    if (unlisted != null) {
      throw new ObjectRequirements.MemberProblem("the symbol index does not list '" + unlisted + "' defined by " + where);
    }
  }

  /** The first of {@code defined} missing from {@code indexed}, or {@code null}. */
  private static String firstUnlisted(List<String> defined, List<String> indexed) {
    Set<String> listed = new HashSet<>(indexed);
    for (String symbol : defined) {
      if (!listed.contains(symbol)) {
        return symbol;
      }
    }
    return null;
  }
}
