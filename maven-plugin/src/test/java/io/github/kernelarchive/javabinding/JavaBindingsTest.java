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
  void structsAndUnionsByValueArraysVariadicsAndBitFieldsAsJextractBindsThem(@TempDir Path dir) throws Exception {
    JavaBindings.Result result = generate(dir, """
        #include <stddef.h>
        typedef struct { float x, y; } api_vec2;
        struct api_box { api_vec2 corner; float weights[4]; const char *names[2]; };
        union api_value { int i; float f; double d; };
        typedef struct { int kind; unsigned ready : 1; unsigned spare : 3; double level; } api_flags;
        api_vec2 api_add(api_vec2 a, api_vec2 b);
        struct api_box api_make_box(float w);
        double api_as_double(union api_value v, int kind);
        int api_log(char *out, size_t n, const char *format, ...);
        int api_flagged(const api_flags *flags);
        """, List.of("api_*"));
    String source = Files.readString(result.source());
    assertEquals(5, result.functions());
    assertEquals(4, result.structs(), "api_vec2, api_box, api_value, api_flags");
    // By value: the struct's layout in the descriptor; a returned one goes into the caller's allocator.
    assertTrue(source.contains("public static MemorySegment api_add(SegmentAllocator allocator, MemorySegment a,"
        + " MemorySegment b)"), source);
    assertTrue(source.contains("FunctionDescriptor.of(ApiVec2.LAYOUT, ApiVec2.LAYOUT, ApiVec2.LAYOUT)"), source);
    assertTrue(source.contains("public static double api_as_double(MemorySegment v, int kind)"), source);
    assertTrue(source.contains("MemoryLayout.unionLayout(\n        ValueLayout.JAVA_INT.withName(\"i\"),\n"
        + "        ValueLayout.JAVA_FLOAT.withName(\"f\"),\n        ValueLayout.JAVA_DOUBLE.withName(\"d\"))"), source);
    // Arrays are sequence layouts, with a slice and indexed accessors; a nested struct is its class's layout.
    assertTrue(source.contains("ApiVec2.LAYOUT.withName(\"corner\"),\n"
        + "        MemoryLayout.sequenceLayout(4L, ValueLayout.JAVA_FLOAT).withName(\"weights\"),\n"
        + "        MemoryLayout.sequenceLayout(2L, ValueLayout.ADDRESS).withName(\"names\"))"), source);
    assertTrue(source.contains("public static float weights(MemorySegment struct, long index)"), source);
    assertTrue(source.contains("public static MemorySegment corner(MemorySegment struct)"), source);
    // Variadic: the variadic arguments' layouts, then their values.
    assertTrue(source.contains("public static int api_log(MemorySegment out, long n, MemorySegment format,"
        + " MemoryLayout[] variadicLayouts, Object... variadicArguments)"), source);
    assertTrue(source.contains("Linker.Option.firstVariadicArg(fixed.argumentLayouts().size())"), source);
    // Bit-fields: skipped, the layout padding over them, with a warning naming each.
    assertTrue(source.contains("ValueLayout.JAVA_INT.withName(\"kind\"),\n        MemoryLayout.paddingLayout(4),\n"
        + "        ValueLayout.JAVA_DOUBLE.withName(\"level\")"), source);
    assertEquals(List.of("api.h:5: field 'ready' of api_flags is a bit-field (1 bit), which no memory layout can"
        + " address: the binding skips it (the struct's layout pads over it) and the other fields work",
        "api.h:5: field 'spare' of api_flags is a bit-field (3 bits), which no memory layout can address: the binding"
        + " skips it (the struct's layout pads over it) and the other fields work"), result.warnings());
    // Names as C writes them: a typedef's alone for an anonymous struct, "struct x" and "union x" otherwise.
    assertTrue(source.contains("/** {@code api_vec2} (a typedef of an anonymous struct): 8 bytes"), source);
    assertTrue(source.contains("/** {@code struct api_box}: 40 bytes"), source);
    assertTrue(source.contains("/** {@code union api_value}: 8 bytes"), source);
  }

  @Test
  void whatCannotBeMappedFailsNamingEachDeclarationAndItsFix(@TempDir Path dir) {
    BuildFailureException e = assertThrows(BuildFailureException.class, () -> generate(dir, """
        #include <stdlib.h>
        typedef struct { int n; float tail[]; } api_list;
        long double api_precise(void);
        int api_first(const api_list *list);
        div_t api_divide(int a, int b);
        """, List.of("api_*")));
    String message = e.getMessage();
    assertTrue(message.contains("cannot map 3 declaration(s)"), message);
    assertTrue(message.contains("api.h:3: api_precise returns 'long double', which Java has no type for (declare double"
        + " or a fixed-width integer instead, or pass it through a pointer)"), message);
    assertTrue(message.contains("api.h:2: field 'tail' of api_list is a flexible array member, whose length C does not"
        + " know (pass its elements through a pointer)"), message);
    assertTrue(message.contains("api.h:5: api_divide returns a struct held by value (div_t) that the library's headers"
        + " do not declare: pass it through a pointer"), message);
    assertTrue(message.endsWith("Change them as each line says, or leave the functions out of the library's <exports>."),
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
