package io.github.kernelarchive.compile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.github.kernelarchive.scan.Language;
import io.github.kernelarchive.scan.SourceFile;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class CompileJobTest {
  /** What keys were made with before: the placeholder by a regular expression. */
  private static String byExpression(String arg, String root) {
    return Pattern.compile(Pattern.quote(root) + "(?=/|=|:|$)").matcher(arg)
        .replaceAll(Matcher.quoteReplacement("<project>"));
  }

  @Test
  void theProjectDirectoryIsReplacedWhereItIsAWholePrefix() {
    String root = "/w/proj";
    assertEquals("-I<project>/include", CompileJob.withPlaceholder("-I/w/proj/include", root, "<project>"));
    assertEquals("-ffile-prefix-map=<project>=.",
        CompileJob.withPlaceholder("-ffile-prefix-map=/w/proj=.", root, "<project>"));
    assertEquals("-I/w/proj-sdk/include", CompileJob.withPlaceholder("-I/w/proj-sdk/include", root, "<project>"));
    assertEquals("<project>:<project>/a", CompileJob.withPlaceholder("/w/proj:/w/proj/a", root, "<project>"));
    assertEquals("<project>", CompileJob.withPlaceholder("/w/proj", root, "<project>"));
    assertEquals("-O2", CompileJob.withPlaceholder("-O2", root, "<project>"));
  }

  /** Keys stay those of earlier builds: the same text as the expression gives, for any argument. */
  @Test
  void theSameTextAsTheExpressionGaveForAnyArgument() {
    Random random = new Random(20261127);
    String[] pieces = {"/w/p", "/w/pp", "/", "=", ":", "-", "x", "\n", "\r\n", "\r", "\u2028", "$", "\\", "<"};
    for (int i = 0; i < 20_000; i++) {
      String root = random.nextBoolean() ? "/w/p" : "/w/p$x\\E.";
      StringBuilder arg = new StringBuilder();
      for (int n = random.nextInt(8); n > 0; n--) {
        arg.append(random.nextInt(3) == 0 ? root : pieces[random.nextInt(pieces.length)]);
      }
      assertEquals(byExpression(arg.toString(), root), CompileJob.withPlaceholder(arg.toString(), root, "<project>"),
          "argument '" + arg + "', root '" + root + "'");
    }
  }

  /** Where the object goes is not in its key, unless the object records that path (-gsplit-dwarf). */
  @Test
  void twoOutputFoldersShareTheKeyUnlessTheObjectRecordsItsPath() {
    SourceFile source = new SourceFile("host", Path.of("/w/proj/src"), "k.c", Language.C);
    java.util.function.BiFunction<String, String, CompileJob> job = (out, flag) -> new CompileJob(source,
        Path.of(out + "/obj/host/k.c.o"), Path.of(out + "/obj/host/k.c.o.d"), List.of(), List.of("cc", "-c", flag,
        "-MD", "-MF", out + "/obj/host/k.c.o.d", "-o", out + "/obj/host/k.c.o", "/w/proj/src/k.c"), Map.of(), "cc 12",
        "/w/proj", out + "/obj");
    assertEquals(job.apply("/w/proj/target/kernel", "-O2").key("h"),
        job.apply("/w/proj/target/kernel-wheel", "-O2").key("h"));
    assertNotEquals(job.apply("/w/proj/target/kernel", "-gsplit-dwarf").key("h"),
        job.apply("/w/proj/target/kernel-wheel", "-gsplit-dwarf").key("h"));
    assertNotEquals(job.apply("/w/proj/target/kernel", "-O2").key("h"), job.apply("/w/proj/target/kernel", "-O3").key("h"));
  }

  /** hipcc's scratch folder (TMPDIR) differs per checkout and cannot change the object; HIP_PLATFORM can. */
  @Test
  void theScratchFolderIsNotInTheKeyAndTheCompilersVariablesAre() {
    SourceFile source = new SourceFile("k", Path.of("/w/proj/src"), "k.hip", Language.HIP);
    java.util.function.Function<Map<String, String>, String> key = environment -> new CompileJob(source,
        Path.of("/w/proj/target/kernel/obj/k/k.hip.o"), Path.of("/w/proj/target/kernel/obj/k/k.hip.o.d"), List.of(),
        List.of("hipcc", "-c", "/w/proj/src/k.hip"), environment, "hipcc 5.2", "/w/proj", "/w/proj/target/kernel/obj")
        .key("h");
    assertEquals(key.apply(Map.of("HIP_PLATFORM", "amd", CompileJob.SCRATCH_VARIABLE, "/a/target/kernel/state/hip-tmp")),
        key.apply(Map.of("HIP_PLATFORM", "amd", CompileJob.SCRATCH_VARIABLE, "/b/target/kernel/state/hip-tmp")));
    assertNotEquals(key.apply(Map.of("HIP_PLATFORM", "amd")), key.apply(Map.of("HIP_PLATFORM", "nvidia")));
  }
}
