package io.github.kernelarchive.javabinding;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.scan.Language;
import io.github.kernelarchive.toolchain.ProcessRunner;
import io.github.kernelarchive.toolchain.Toolchain;
import io.github.kernelarchive.toolchain.ToolchainConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The generator with the real castxml; compiling and calling the class is IT java-ffm's. */
class JavaBindingsTest {
  static JavaBindings bindings;

  @BeforeAll
  static void castxml() throws Exception {
    boolean present = System.getenv("PATH") != null && java.util.Arrays.stream(System.getenv("PATH").split(":"))
        .anyMatch(d -> Files.isExecutable(Path.of(d, "castxml")));
    if (!present) {
      System.out.println("SKIPPED: JavaBindingsTest: castxml is not installed (apt-get install castxml)");
    }
    assumeTrue(present, "castxml");
    bindings = new JavaBindings("castxml", new Toolchain(ToolchainConfig.defaults(), System.getenv())
        .compiler(Language.C).orElseThrow(), new ProcessRunner(Map.of()));
  }

  private static JavaBindings.Result generate(Path dir, String header, List<String> exports) throws Exception {
    Path include = Files.createDirectories(dir.resolve("include"));
    Files.writeString(include.resolve("api.h"), header);
    return bindings.generate(new JavaBindingRequest(include.resolve("api.h"), include, "com.example", "Api", "api",
        exports, dir.resolve("generated"), dir.resolve("work")));
  }

  @Test
  void bindsExportedFunctionsTheStructsTheyPassAndEnums(@TempDir Path dir) throws Exception {
    JavaBindings.Result result = generate(dir, """
        #include <stdint.h>
        #include <stddef.h>
        typedef enum { API_A = 0, API_B = 5, API_BIG = 0x100000000 } api_mode;
        typedef struct { int8_t tag; double weight; const char *name; api_mode mode; } api_item;
        struct api_unused { long x; };
        int api_count(const api_item *items, size_t n);
        unsigned short api_short(unsigned char c, _Bool flag);
        void api_reset(void);
        int hidden_helper(int);
        """, List.of("api_*"));
    String source = Files.readString(result.source());
    assertEquals(dir.resolve("generated/com/example/Api.java"), result.source());
    assertEquals(3, result.functions());
    assertEquals(1, result.structs(), "only the struct the API passes");
    assertTrue(source.contains("public static int api_count(MemorySegment items, long n)"), source);
    assertTrue(source.contains("public static short api_short(byte c, boolean flag)"), source);
    assertTrue(source.contains("public static void api_reset()"), source);
    assertTrue(source.contains("FunctionDescriptor.ofVoid()"), source);
    assertTrue(source.contains("public static final int API_B = 5;"), source);
    assertTrue(source.contains("public static final long API_BIG = 4294967296L;"), source);
    // int8_t at 0, 7 bytes of padding, the double at 8: castxml's offsets, not guessed.
    assertTrue(source.contains("ValueLayout.JAVA_BYTE.withName(\"tag\"),\n        MemoryLayout.paddingLayout(7),\n"
        + "        ValueLayout.JAVA_DOUBLE.withName(\"weight\")"), source);
    assertTrue(source.contains("public static final class ApiItem"), source);
    assertFalse(source.contains("hidden_helper") || source.contains("ApiUnused"), source);
    assertTrue(source.contains("KernelLibrary.load(\"api\", Api.class.getClassLoader(), System::load)"), source);
    assertFalse(generate(dir, Files.readString(dir.resolve("include/api.h")), List.of("api_*")).written(),
        "the same text is not written again");
  }

  @Test
  void whatCannotBeMappedFailsNamingEachDeclaration(@TempDir Path dir) {
    BuildFailureException e = assertThrows(BuildFailureException.class, () -> generate(dir, """
        typedef struct { int a, b; } api_pair;
        typedef struct { int bits : 3; } api_flags;
        int api_sum(api_pair pair);
        int api_log(const char *format, ...);
        long double api_precise(void);
        int api_flagged(const api_flags *flags);
        """, List.of("api_*")));
    String message = e.getMessage();
    assertTrue(message.contains("cannot map 4 declaration(s)"), message);
    assertTrue(message.contains("api.h:3: api_sum's parameter 'pair' is a struct held by value (api_pair)"), message);
    assertTrue(message.contains("api.h:4: api_log takes variable arguments (...)"), message);
    assertTrue(message.contains("api.h:5: api_precise returns 'long double', which Java has no type for"), message);
    assertTrue(message.contains("field 'bits' of struct api_flags is a bit-field"), message);
    assertTrue(message.contains("Pass such values by pointer, or leave the function out of the library's <exports>."),
        message);
  }

  @Test
  void exportsThatMatchNoDeclarationAreReported(@TempDir Path dir) {
    BuildFailureException e = assertThrows(BuildFailureException.class,
        () -> generate(dir, "int other(void);\n", List.of("api_*")));
    assertTrue(e.getMessage().contains("No function declared in api.h matches the exports of libapi.so (api_*)"),
        e.getMessage());
  }

  @Test
  void aHeaderTheJarDoesNotCarryIsNamedWithTheOnesItDoes(@TempDir Path dir) throws Exception {
    Path include = Files.createDirectories(dir.resolve("include/sub"));
    Files.writeString(include.resolve("api.h"), "int api(void);\n");
    io.github.kernelarchive.common.BuildFailureException e = org.junit.jupiter.api.Assertions.assertThrows(
        io.github.kernelarchive.common.BuildFailureException.class, () -> bindings.generate(new JavaBindingRequest(
            dir.resolve("include/vecops.h"), dir.resolve("include"), "com.example", "Api", "api", List.of(),
            dir.resolve("generated"), dir.resolve("work"))));
    assertEquals("The header vecops.h (<java><header>) is not among the public headers the kernel jar carries, which"
        + " are sub/api.h. Name one of them, or ship the header: the kernel module's jar carries the files under its"
        + " kernel.headers folder (default src/main/include).", e.getMessage());
  }

  @Test
  void classNamesComeFromCNames() {
    assertEquals("MhaFwdArgs", FfmClassWriter.className("mha_fwd_args"));
    assertEquals("Mha", KernelJarContents.className("mha"));
    assertEquals("FastOps", KernelJarContents.className("fast-ops"));
  }
}
