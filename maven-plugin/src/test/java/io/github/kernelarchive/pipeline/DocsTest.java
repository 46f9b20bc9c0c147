package io.github.kernelarchive.pipeline;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What README.md and docs/ tell a new user holds: the files they point at exist, goals are written
 * as Maven resolves them, and the log line README quotes is the one a second build prints.
 */
class DocsTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  @TempDir Path dir;

  private static List<Path> documents() throws Exception {
    List<Path> documents = new ArrayList<>(List.of(ROOT.resolve("README.md")));
    try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
      docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(documents::add);
    }
    return documents;
  }

  @Test
  void everyLinkAndEveryNamedMarkdownFileExists() throws Exception {
    Pattern link = Pattern.compile("\\]\\(([^)#\\s]+)(#[^)]*)?\\)");
    Pattern named = Pattern.compile("`([\\w./-]+\\.md)`");
    List<String> missing = new ArrayList<>();
    for (Path document : documents()) {
      String text = Files.readString(document);
      for (Matcher m = link.matcher(text); m.find(); ) {
        String target = m.group(1);
        if (!target.contains("://") && !Files.exists(document.getParent().resolve(target))) {
          missing.add(ROOT.relativize(document) + " links " + target);
        }
      }
      for (Matcher m = named.matcher(text); m.find(); ) {
        String file = m.group(1);
        if (!Files.exists(document.getParent().resolve(file)) && !Files.exists(ROOT.resolve(file))
            && !Files.exists(ROOT.resolve("docs").resolve(file))) {
          missing.add(ROOT.relativize(document) + " names " + file);
        }
      }
    }
    assertEquals(List.of(), missing);
  }

  @Test
  void goalsAreWrittenAsUsersTypeThem() throws Exception {
    // Maven knows the plugin by its prefix "kernel" (goalPrefix) or its full coordinates, never "kernel-archive".
    Pattern wrong = Pattern.compile("(?<![\\w.-])kernel-archive:(build|help)\\b");
    for (Path document : documents()) {
      Matcher m = wrong.matcher(Files.readString(document));
      if (m.find()) {
        fail(ROOT.relativize(document) + " writes " + m.group() + ": Maven answers \"No plugin found for prefix"
            + " 'kernel-archive'\"; write kernel:" + m.group(1));
      }
    }
    assertTrue(Files.readString(ROOT.resolve("README.md")).contains("`mvn kernel:help -Ddetail`"),
        "README names the help goal as a user types it");
  }

  @Test
  void readmeQuotesTheCompileLineASecondBuildPrints() throws Exception {
    Matcher quoted = Pattern.compile("prints\\s+`(Compile: [^`]+)`").matcher(Files.readString(ROOT.resolve("README.md")));
    assertTrue(quoted.find(), "README quotes the compile line of a second build");
    String template = quoted.group(1).replaceAll("\\s+", " ");
    Pattern expected = Pattern.compile(Pattern.quote(template).replaceAll("\\b([HAN])\\b", "\\\\E\\\\d+\\\\Q"));

    Path project = dir.resolve("p");
    Files.createDirectories(project.resolve("host"));
    Files.createDirectories(project.resolve("kernels"));
    Files.writeString(project.resolve("host/api.c"), "int k0(void);\nint api(void) { return k0(); }\n");
    for (int i = 0; i < 3; i++) {
      Files.writeString(project.resolve("kernels/k" + i + ".c"), "int k" + i + "(void) { return " + i + "; }\n");
    }
    KernelBuildRequest request = KernelBuildRequest.builder(project, "p").host(project.resolve("host"))
        .archive("k", project.resolve("kernels")).jobs(2).exports("api").build();
    new KernelBuild(new RecordingLog(), System.getenv()).run(request);
    RecordingLog second = new RecordingLog();
    new KernelBuild(second, System.getenv()).run(request);
    String line = second.text().lines().filter(l -> l.contains("Compile: ")).findFirst().orElseThrow();
    String printed = line.substring(line.indexOf("Compile: "));
    assertTrue(expected.matcher(printed).matches(), "README says `" + template + "`, the build printed: " + printed);
    assertEquals("Compile: 0 compiled, 1 up to date, 3 in current or cached archives", printed);
  }
}
