package io.github.kernelarchive.archive;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.kernelarchive.ar.ArMember;
import io.github.kernelarchive.ar.ArReader;
import io.github.kernelarchive.ar.ArWriter;
import io.github.kernelarchive.ar.ArchiveDigest;
import io.github.kernelarchive.elf.ElfObject;
import io.github.kernelarchive.pipeline.RecordingLog;
import io.github.kernelarchive.toolchain.ProcessRunner;
import io.github.kernelarchive.toolchain.Toolchain;
import io.github.kernelarchive.toolchain.ToolchainConfig;
import io.github.kernelarchive.util.ContentHashes;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each kind of damage is rejected with a message that names it. */
class ArchiveValidatorTest {
  @TempDir Path dir;
  private List<PlannedMember> members;
  private Path archive;
  private final ArchiveValidator validator = new ArchiveValidator(ElfObject.hostMachine());

  @BeforeEach
  void buildAValidArchive() throws Exception {
    members = NativeObjects.members(dir.resolve("obj"), 6, i -> "m" + i + ".o");
    archive = build(members, "valid");
    validator.validate(archive, members);
  }

  private Path build(List<PlannedMember> planned, String tag) throws Exception {
    Path output = dir.resolve(tag + "/libk.a");
    new ArchiveBuilder(new Toolchain(ToolchainConfig.defaults(), System.getenv()).archiver(),
        new ProcessRunner(Map.of()), 4, 2, null, new io.github.kernelarchive.util.ContentHashes(), new RecordingLog(),
        ElfObject.hostMachine()).build("k", NativeObjects.inputs(planned),
        dir.resolve(tag + "/work"), output);
    return output;
  }

  /**
   * An archive made by GNU ar alone, as one might sit in a cache: the builder refuses foreign
   * objects before archiving, so archives that hold them are made without it.
   */
  private Path archiveWithAr(List<PlannedMember> planned, String tag) throws Exception {
    Path output = Files.createDirectories(dir.resolve(tag)).resolve("libk.a");
    List<String> argv = new ArrayList<>(List.of("ar", "qcsD", output.toString()));
    planned.forEach(m -> argv.add(m.object().toString()));
    NativeObjects.run(argv, dir);
    return output;
  }

  private void assertRejected(Path candidate, List<PlannedMember> planned, String expected) {
    ArchiveInvalidException e = assertThrows(ArchiveInvalidException.class, () -> validator.validate(candidate, planned));
    assertTrue(e.getMessage().contains(expected), "expected '" + expected + "' in: " + e.getMessage());
  }

  private Path copy(String name) throws Exception {
    return Files.copy(archive, dir.resolve(name));
  }

  @Test
  void truncated() throws Exception {
    Path damaged = copy("truncated.a");
    try (RandomAccessFile file = new RandomAccessFile(damaged.toFile(), "rw")) {
      file.setLength(file.length() - 100);
    }
    assertRejected(damaged, members, "truncated");
  }

  @Test
  void flippedByteInAMember() throws Exception {
    Path damaged = copy("flipped.a");
    ArMember third = ArReader.read(damaged).members().get(2);
    try (RandomAccessFile file = new RandomAccessFile(damaged.toFile(), "rw")) {
      long at = third.dataOffset() + third.size() / 2;
      file.seek(at);
      int b = file.read();
      file.seek(at);
      file.write(b ^ 0x40);
    }
    assertRejected(damaged, members, "member 'm2.o' (position 3) differs from");
  }

  @Test
  void digestCoversHeadersIndexAndMembers() throws Exception {
    List<String> hashes = members.stream().map(PlannedMember::sha256).toList();
    String digest = ArchiveDigest.of(archive, hashes);
    org.junit.jupiter.api.Assertions.assertEquals(digest, ArchiveDigest.of(copy("same.a"), hashes));
    // A byte of the symbol index, of a member header (its mode field) and a member's hash each change it.
    ArMember first = ArReader.read(archive).members().get(0);
    for (long at : new long[] {8 + 60 + 4, first.headerOffset() + 40}) {
      Path edited = copy("edited-" + at + ".a");
      try (RandomAccessFile file = new RandomAccessFile(edited.toFile(), "rw")) {
        file.seek(at);
        int b = file.read();
        file.seek(at);
        file.write(b == '0' ? '1' : b ^ 0x01);
      }
      org.junit.jupiter.api.Assertions.assertNotEquals(digest, ArchiveDigest.of(edited, hashes), "byte " + at);
    }
    List<String> otherHashes = new ArrayList<>(hashes);
    otherHashes.set(5, hashes.get(4));
    org.junit.jupiter.api.Assertions.assertNotEquals(digest, ArchiveDigest.of(archive, otherHashes));
  }

  @Test
  void missingAndExtraMembers() throws Exception {
    List<PlannedMember> more = new ArrayList<>(members);
    Path extraObject = NativeObjects.compile(dir.resolve("obj/m6.o"), "int m6(void) { return 6; }\n");
    more.add(new PlannedMember("m6.o", extraObject, new ContentHashes().of(extraObject).orElseThrow()));
    assertRejected(archive, more, "missing member 'm6.o' (position 7 of 7)");
    assertRejected(archive, members.subList(0, 5), "extra member 'm5.o'");
  }

  @Test
  void missingSymbolIndex() throws Exception {
    Path noIndex = dir.resolve("noindex.a");
    List<String> argv = new ArrayList<>(List.of("ar", "qcSD", noIndex.toString()));
    members.forEach(m -> argv.add(m.object().toString()));
    NativeObjects.run(argv, dir);
    assertRejected(noIndex, members, "no symbol index");
  }

  @Test
  void indexThatMissesASymbol() throws Exception {
    Path partial = dir.resolve("partial.a");
    List<ArWriter.Entry> entries = new ArrayList<>();
    for (PlannedMember m : members) {
      entries.add(new ArWriter.Entry(m.name(), m.object(), 0, Files.size(m.object()), m.name().equals("m4.o") ? List.of()
          : ElfObject.parse(ByteBuffer.wrap(Files.readAllBytes(m.object()))).definedExternalSymbols()));
    }
    ArWriter.write(partial, entries);
    assertRejected(partial, members, "does not list");
  }

  @Test
  void memberWithAnEditedElfMachine() throws Exception {
    List<PlannedMember> edited = new ArrayList<>(members);
    Path object = Files.copy(members.get(1).object(), dir.resolve("edited-m1.o"));
    try (RandomAccessFile file = new RandomAccessFile(object.toFile(), "rw")) {
      file.seek(18); // e_machine, little-endian
      file.write(ElfObject.EM_AARCH64 & 0xff);
      file.write(ElfObject.EM_AARCH64 >> 8);
    }
    edited.set(1, new PlannedMember("edited-m1.o", object, new ContentHashes().of(object).orElseThrow()));
    assertRejected(archiveWithAr(edited, "edited"), edited, "member 'edited-m1.o' (position 2) is an aarch64 object");
  }

  @Test
  void memberFromTheAarch64CrossCompiler() throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(NativeObjects.installed("aarch64-linux-gnu-gcc"));
    Path source = Files.writeString(dir.resolve("arm.c"), "int arm(void) { return 64; }\n");
    Path object = dir.resolve("obj/arm.o");
    NativeObjects.run(List.of("aarch64-linux-gnu-gcc", "-c", "-o", object.toString(), source.toString()), dir);
    List<PlannedMember> mixed = new ArrayList<>(members);
    mixed.add(new PlannedMember("arm.o", object, new ContentHashes().of(object).orElseThrow()));
    assertRejected(archiveWithAr(mixed, "cross"), mixed, "member 'arm.o' (position 7) is an aarch64 object but this library is built for x86-64");
  }

  /** What the builder knows about each member after reading it. */
  private List<InspectedObject> inspected() throws Exception {
    List<InspectedObject> objects = new ArrayList<>();
    for (PlannedMember m : members) {
      List<String> symbols = ElfObject.parse(ByteBuffer.wrap(Files.readAllBytes(m.object()))).definedExternalSymbols();
      objects.add(new InspectedObject(m.name(), m.object(), Files.size(m.object()), Files.getLastModifiedTime(m.object()),
          m.sha256(), symbols, List.of()));
    }
    return objects;
  }

  @Test
  void aFreshArchiveIsReadBackAgainstWhatWasInspected() throws Exception {
    validator.validateWritten(archive, inspected());

    List<InspectedObject> moreSymbols = new ArrayList<>(inspected());
    InspectedObject m2 = moreSymbols.get(2);
    moreSymbols.set(2, new InspectedObject(m2.name(), m2.object(), m2.size(), m2.modified(), m2.sha256(),
        List.of("member_2", "not_in_the_index"), List.of()));
    ArchiveInvalidException e = assertThrows(ArchiveInvalidException.class,
        () -> validator.validateWritten(archive, moreSymbols));
    assertTrue(e.getMessage().contains("the symbol index does not list 'not_in_the_index' defined by member 'm2.o' "
        + "(position 3)"), e.getMessage());

    List<InspectedObject> otherSize = new ArrayList<>(inspected());
    InspectedObject m4 = otherSize.get(4);
    otherSize.set(4, new InspectedObject(m4.name(), m4.object(), m4.size() + 2, m4.modified(), m4.sha256(),
        m4.symbols(), List.of()));
    e = assertThrows(ArchiveInvalidException.class, () -> validator.validateWritten(archive, otherSize));
    assertTrue(e.getMessage().contains("member 'm4.o' (position 5) holds " + m4.size() + " bytes"), e.getMessage());

    e = assertThrows(ArchiveInvalidException.class,
        () -> validator.validateWritten(archive, inspected().subList(0, 5)));
    assertTrue(e.getMessage().contains("extra member 'm5.o' (position 6; only 5 planned)"), e.getMessage());
  }
}
