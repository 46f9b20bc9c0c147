package io.github.kernelarchive.archive;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.kernelarchive.elf.ElfObject;
import io.github.kernelarchive.pipeline.RecordingLog;
import io.github.kernelarchive.toolchain.Tool;
import io.github.kernelarchive.toolchain.Toolchain;
import io.github.kernelarchive.toolchain.ToolchainConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Batched archiving with the real GNU ar and llvm-ar, checked with ar, nm and the linker. */
class ArchiveBuilderTest {
  @TempDir Path dir;
  private final RecordingLog log = new RecordingLog();

  private Tool archiver(String name) throws Exception {
    assumeTrue(NativeObjects.installed(name));
    return new Toolchain(new ToolchainConfig(null, null, null, null, name, null, null, Map.of()), System.getenv()).archiver();
  }

  private Path build(Tool ar, List<PlannedMember> members, int batchSize, String tag) throws Exception {
    return build(ar, members, batchSize, tag, ArchiveBuilder.THIN_MEMBER_BYTES);
  }

  /** With thin batches from {@code thinFrom} bytes a member on average (0: always, Long.MAX_VALUE: never). */
  private Path build(Tool ar, List<PlannedMember> members, int batchSize, String tag, long thinFrom) throws Exception {
    Path output = dir.resolve(tag + "/libk.a");
    new ArchiveBuilder(ar, new io.github.kernelarchive.toolchain.ProcessRunner(Map.of()), batchSize, 2, null, new io.github.kernelarchive.util.ContentHashes(), log, ElfObject.hostMachine())
        .thinFrom(thinFrom).build("k", NativeObjects.inputs(members), dir.resolve(tag + "/work"), output);
    new ArchiveValidator(ElfObject.hostMachine()).validate(output, members);
    return output;
  }

  /**
   * The kind of batch is part of its key: a batch the last build left thin is not taken as one that
   * holds its members (or the other way round), it is made again, and the archive does not change.
   */
  @Test
  void aBatchOfTheOtherKindIsMadeAgain() throws Exception {
    Tool ar = archiver("llvm-ar");
    List<PlannedMember> members = NativeObjects.members(dir.resolve("obj"), 12, i -> "k" + i + ".o");
    byte[] thin = Files.readAllBytes(build(ar, members, 5, "switch", 0));
    log.clear();
    byte[] copied = Files.readAllBytes(build(ar, members, 5, "switch", Long.MAX_VALUE));
    assertArrayEquals(thin, copied);
    assertEquals(3, log.lines().stream().filter(l -> l.contains("AR k batch")).count(), log.text());
    assertEquals("!<arch>\n", new String(Files.readAllBytes(dir.resolve("switch/work/batch-00000.a")), 0, 8,
        java.nio.charset.StandardCharsets.US_ASCII));
    log.clear();
    build(ar, members, 5, "switch", Long.MAX_VALUE);
    assertEquals(0, log.lines().stream().filter(l -> l.contains("AR k batch")).count(), "kept: " + log.text());
  }

  @ParameterizedTest
  @ValueSource(strings = {"ar", "llvm-ar"})
  void batchesGiveOneDeterministicArchiveWithEveryMemberInOrder(String arName) throws Exception {
    Tool ar = archiver(arName);
    // Repeated basenames in different folders, and names ar and response files find awkward.
    String[] odd = {"with space.o", "quote\"d.o", "back\\slash.o", "@leading.o", "a-very-long-member-name-beyond-16.o"};
    List<PlannedMember> members = NativeObjects.members(dir.resolve("obj"), 40,
        i -> i < odd.length ? "odd/" + odd[i] : "d" + (i / 10) + "/k" + (i % 10) + ".o");
    Path small = build(ar, members, 7, "b7");
    Path large = build(ar, members, 400, "b400");
    assertArrayEquals(Files.readAllBytes(small), Files.readAllBytes(large), "batch size must not change the bytes");
    Path again = build(ar, members, 7, "again");
    assertArrayEquals(Files.readAllBytes(small), Files.readAllBytes(again), "deterministic");
    Path thin = build(ar, members, 7, "thin", 0);
    assertArrayEquals(Files.readAllBytes(small), Files.readAllBytes(thin), "thin batches must not change the bytes");

    List<String> listed = NativeObjects.run(List.of(ar.command(), "t", small.toString()), dir).lines().toList();
    assertEquals(members.stream().map(PlannedMember::name).toList(), listed);
    String index = NativeObjects.run(List.of("nm", "-s", small.toString()), dir);
    assertTrue(index.contains("member_39 in k9.o"), index);
    assertTrue(log.lines().stream().anyMatch(l -> l.contains("AR k batch 6/6 (5 objects)")), log.text());

    // The linker takes it whole, and every member's symbol is there.
    Path library = dir.resolve("libwhole.so");
    NativeObjects.run(List.of("cc", "-shared", "-o", library.toString(), "-Wl,--whole-archive", small.toString(),
        "-Wl,--no-whole-archive"), dir);
    String dynamic = NativeObjects.run(List.of("nm", "-D", "--defined-only", library.toString()), dir);
    for (int i = 0; i < 40; i++) {
      assertTrue(dynamic.contains(" member_" + i + "\n"), "member_" + i + " missing from the linked library");
    }
  }

  /** A CI layout: the build folder is a link into scratch space, elsewhere in the tree than the objects. */
  @ParameterizedTest
  @ValueSource(strings = {"ar", "llvm-ar"})
  void aWorkFolderReachedThroughASymbolicLinkStillChecksItsBatches(String arName) throws Exception {
    Tool ar = archiver(arName);
    List<PlannedMember> members = NativeObjects.members(dir.resolve("checkout/obj"), 12, i -> "k" + i + ".o");
    Path scratch = Files.createDirectories(dir.resolve("scratch/deep/er/target"));
    Path target = Files.createSymbolicLink(dir.resolve("checkout/target"), scratch);
    Path output = target.resolve("libk.a");
    new ArchiveBuilder(ar, new io.github.kernelarchive.toolchain.ProcessRunner(Map.of()), 5, 2, null, new io.github.kernelarchive.util.ContentHashes(), log, ElfObject.hostMachine())
        .build("k", NativeObjects.inputs(members), target.resolve("work"), output);
    new ArchiveValidator(ElfObject.hostMachine()).validate(output, members);
  }

  @ParameterizedTest
  @ValueSource(strings = {"llvm-ar"})
  void onlyTheBatchOfAChangedObjectRunsAgain(String arName) throws Exception {
    Tool ar = archiver(arName);
    List<PlannedMember> members = new ArrayList<>(NativeObjects.members(dir.resolve("obj"), 30, i -> "k" + i + ".o"));
    build(ar, members, 10, "inc");
    log.clear();
    Path changed = NativeObjects.compile(members.get(15).object(), "int member_15(void) { return -15; }\n");
    members.set(15, new PlannedMember("k15.o", changed, new io.github.kernelarchive.util.ContentHashes().of(changed).orElseThrow()));
    build(ar, members, 10, "inc");
    List<String> arLines = log.lines().stream().filter(l -> l.contains(" AR ")).toList();
    assertEquals(List.of("INFO [1/1] AR k batch 2/3 (10 objects)"), arLines);
  }

  /**
   * Prebuilt objects are keyed by content. A batch of them is kept while each member's size and
   * time still vouch for the hash the last build recorded; a member that changed makes its batch
   * run again (keyed afterwards from the combine's hashes, so the object is not read twice).
   */
  @Test
  void aBatchOfPrebuiltObjectsIsKeptWhileTheirStampsHold() throws Exception {
    Tool ar = archiver("llvm-ar");
    List<PlannedMember> members = new ArrayList<>(NativeObjects.members(dir.resolve("obj"), 30, i -> "k" + i + ".o"));
    for (PlannedMember member : members) {
      // Settled objects, as prebuilt ones usually are: a stamp is trusted only for a file not just written.
      Files.setLastModifiedTime(member.object(), FileTime.fromMillis(1_700_000_000_000L));
    }
    Path hashFile = dir.resolve("file-hashes");
    buildPrebuilt(ar, members, hashFile);
    log.clear();
    buildPrebuilt(ar, members, hashFile);
    assertEquals(List.of(), log.lines().stream().filter(l -> l.contains(" AR ")).toList(), "every stamp holds");
    Path changed = NativeObjects.compile(members.get(25).object(), "int member_25(void) { return -25; }\n");
    Files.setLastModifiedTime(changed, FileTime.fromMillis(1_700_000_100_000L));
    members.set(25, new PlannedMember("k25.o", changed, new io.github.kernelarchive.util.ContentHashes().of(changed)
        .orElseThrow()));
    buildPrebuilt(ar, members, hashFile);
    assertEquals(List.of("INFO [1/1] AR k batch 3/3 (10 objects)"),
        log.lines().stream().filter(l -> l.contains(" AR ")).toList());
  }

  /** Builds from prebuilt inputs with the hashes the last build recorded, and records this build's, as the archive stage does. */
  private void buildPrebuilt(Tool ar, List<PlannedMember> members, Path hashFile) throws Exception {
    io.github.kernelarchive.util.ContentHashes hashes = io.github.kernelarchive.util.ContentHashes.load(hashFile);
    Path output = dir.resolve("prebuilt/libk.a");
    ArchiveBuilder.Result result = new ArchiveBuilder(ar, new io.github.kernelarchive.toolchain.ProcessRunner(Map.of()),
        10, 2, null, hashes, log, ElfObject.hostMachine()).build("k", members.stream().map(m -> new ArchiveBuilder.Input(m.name(), m.object()))
        .toList(), dir.resolve("prebuilt/work"), output);
    new ArchiveValidator(ElfObject.hostMachine()).validate(output, members);
    for (InspectedObject member : result.members()) {
      hashes.remember(member.object(), member.sha256(), member.size(), member.modified().toMillis());
    }
    hashes.save(hashFile);
  }

  /** Thin batches (0) and batches that hold the members' bytes (what objects this small get). */
  @ParameterizedTest
  @ValueSource(longs = {0, Long.MAX_VALUE})
  void aBatchThatDoesNotListItsObjectsIsRejected(long thinFrom) throws Exception {
    Tool ar = archiver("llvm-ar");
    List<PlannedMember> members = NativeObjects.members(dir.resolve("obj"), 30, i -> "k" + i + ".o");
    build(ar, members, 10, "tamper", thinFrom);
    Path work = dir.resolve("tamper/work");
    // Batch 2's file now lists batch 1's objects; its key still matches, so only the combine can tell.
    // A thin batch is listed before the combine; one that holds its members is read with each
    // member's header, which names another object.
    Files.copy(work.resolve("batch-00000.a"), work.resolve("batch-00001.a"), StandardCopyOption.REPLACE_EXISTING);
    ArchiveInvalidException e = assertThrows(ArchiveInvalidException.class,
        () -> build(ar, members, 10, "tamper", thinFrom));
    assertTrue(e.getMessage().contains("batch-00001.a") && (thinFrom == 0
        ? e.getMessage().contains("member 1 is '") && e.getMessage().contains("k10.o was planned there")
        : e.getMessage().contains("does not hold member 'k10.o'") && e.getMessage().contains("header reads 'k0.o/")),
        e.getMessage());
    // A batch that is no archive at all.
    Files.copy(members.get(0).object(), work.resolve("batch-00001.a"), StandardCopyOption.REPLACE_EXISTING);
    e = assertThrows(ArchiveInvalidException.class, () -> build(ar, members, 10, "tamper", thinFrom));
    assertTrue(e.getMessage().contains("batch-00001.a")
        && e.getMessage().contains(thinFrom == 0 ? "not a thin archive" : "not an ar archive"),
        e.getMessage());
  }

  @Test
  void anObjectForAnotherCpuIsRefusedBeforeArchiving() throws Exception {
    assumeTrue(NativeObjects.installed("aarch64-linux-gnu-gcc"));
    Tool ar = archiver("ar");
    List<PlannedMember> members = new ArrayList<>(NativeObjects.members(dir.resolve("obj"), 3, i -> "k" + i + ".o"));
    Path source = Files.writeString(dir.resolve("arm.c"), "int arm(void) { return 64; }\n");
    Path arm = dir.resolve("obj/arm.o");
    NativeObjects.run(List.of("aarch64-linux-gnu-gcc", "-c", "-o", arm.toString(), source.toString()), dir);
    members.add(1, new PlannedMember("arm.o", arm, "not used"));
    ArchiveInvalidException e = assertThrows(ArchiveInvalidException.class, () -> build(ar, members, 2, "arm"));
    assertTrue(e.getMessage().contains("object " + arm + " (member 2 of archive 'k') is an aarch64 object but "
        + "this library is built for x86-64. Rebuild " + arm + " for x86-64 or remove it."), e.getMessage());
    assertTrue(Files.notExists(dir.resolve("arm/libk.a")), "nothing is published");
  }

  /**
   * An archiver that loses a member (as GNU ar's {@code r} drops a repeated basename): every batch
   * is checked against its planned objects, and the build fails naming the batch before anything
   * is published.
   */
  @Test
  void aBatchTheArchiverMadeShortIsRejectedNamingIt() throws Exception {
    assumeTrue(NativeObjects.installed("llvm-ar"));
    Path lossy = dir.resolve("lossy-ar");
    Files.writeString(lossy, "#!/bin/sh\n"
        + "# Drops the last object of the response file it is given, then archives the rest with llvm-ar.\n"
        + "for a in \"$@\"; do last=$a; done\n"
        + "case \"$last\" in @*) sed -i '$d' \"${last#@}\";; esac\n"
        + "exec llvm-ar \"$@\"\n");
    Files.setPosixFilePermissions(lossy, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
    Tool ar = new Toolchain(new ToolchainConfig(null, null, null, null, lossy.toString(), null, null, Map.of()),
        System.getenv()).archiver();
    List<PlannedMember> members = NativeObjects.members(dir.resolve("obj"), 12, i -> "k" + i + ".o");
    ArchiveInvalidException e = assertThrows(ArchiveInvalidException.class, () -> build(ar, members, 5, "lossy"));
    assertTrue(e.getMessage().contains("batch-00000.a") && e.getMessage().contains("recorded 4 of the 5 objects"),
        e.getMessage());
    assertTrue(Files.notExists(dir.resolve("lossy/libk.a")), "nothing is published");
  }

  @Test
  void aFileThatIsNotAnObjectIsRefusedNamingIt() throws Exception {
    Tool ar = archiver("ar");
    List<PlannedMember> members = new ArrayList<>(NativeObjects.members(dir.resolve("obj"), 2, i -> "k" + i + ".o"));
    Path text = Files.writeString(dir.resolve("obj/notes.o"), "not an object\n");
    members.add(new PlannedMember("notes.o", text, "not used"));
    ArchiveInvalidException e = assertThrows(ArchiveInvalidException.class, () -> build(ar, members, 400, "text"));
    assertTrue(e.getMessage().contains("object " + text + " (member 3 of archive 'k') is not a valid object: not an "
        + "ELF file"), e.getMessage());
  }

  /** Each object is read once; one whose size or time moved since it was looked at is refused, not archived torn. */
  @Test
  void anObjectRewrittenWhileItWasArchivedIsRefused() throws Exception {
    List<PlannedMember> planned = NativeObjects.members(dir.resolve("obj"), 3, i -> "k" + i + ".o");
    Path output = dir.resolve("libk.a");
    Path rewritten = planned.get(1).object();
    BasicFileAttributes before = Files.readAttributes(rewritten, BasicFileAttributes.class);
    ArchiveBuilder.checkUnchanged(rewritten, before, output);
    Files.setLastModifiedTime(rewritten, FileTime.fromMillis(before.lastModifiedTime().toMillis() + 1000));
    ArchiveInvalidException e = assertThrows(ArchiveInvalidException.class,
        () -> ArchiveBuilder.checkUnchanged(rewritten, before, output));
    assertTrue(e.getMessage().contains(rewritten + " changed while it was archived"), e.getMessage());
  }
}

