package io.github.kernelarchive.javabinding;

import io.github.kernelarchive.audit.ExportAudit;
import io.github.kernelarchive.common.BuildFailureException;
import io.github.kernelarchive.common.ToolchainException;
import io.github.kernelarchive.toolchain.ProcessResult;
import io.github.kernelarchive.toolchain.ProcessRunner;
import io.github.kernelarchive.toolchain.Tool;
import io.github.kernelarchive.util.AtomicFiles;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Generates the Java FFM binding of a library's public header: castxml (a real C front end, in
 * Debian) reads the header, {@link CastXmlReader} takes what the library's own headers declare,
 * the exported functions are kept, every type they use is checked, and {@link FfmClassWriter}
 * writes the class. A type it cannot map fails the build, naming the declaration.
 */
public final class JavaBindings {
  /**
   * @param written false when the class was already there with the same text
   * @param warnings what the binding leaves out (bit-fields), each naming the declaration
   */
  public record Result(Path source, int functions, int structs, int constants, boolean written,
      List<String> warnings) {}

  private final String castxml;
  private final Tool cCompiler;
  private final ProcessRunner runner;

  /** @param castxml the castxml executable; @param cCompiler the C compiler castxml imitates (its built-in macros and paths) */
  public JavaBindings(String castxml, Tool cCompiler, ProcessRunner runner) {
    this.castxml = castxml;
    this.cCompiler = cCompiler;
    this.runner = runner;
  }

  public Result generate(JavaBindingRequest request) throws IOException, BuildFailureException, ToolchainException {
    if (!Files.isRegularFile(request.header())) {
      List<String> held = new ArrayList<>();
      if (Files.isDirectory(request.includeDirectory())) {
        try (Stream<Path> walk = Files.walk(request.includeDirectory())) {
          walk.filter(Files::isRegularFile).map(p -> request.includeDirectory().relativize(p).toString()).sorted()
              .forEach(held::add);
        }
      }
      throw new BuildFailureException("The header " + request.includeDirectory().relativize(request.header())
          + " (<java><header>) is not among the public headers the kernel jar carries, which are "
          + (held.isEmpty() ? "none" : String.join(", ", held)) + ". Name one of them, or ship the header: the kernel"
          + " module's jar carries the files under its kernel.headers folder (default src/main/include).");
    }
    Files.createDirectories(request.workDirectory());
    Path xml = request.workDirectory().resolve(request.header().getFileName() + ".xml");
    ProcessResult parsed;
    try {
      parsed = runner.run(List.of(castxml, "--castxml-output=1", "--castxml-cc-gnu-c", cCompiler.command(), "-x", "c",
          "-I" + request.includeDirectory(), "-o", xml.toString(), request.header().toString()),
          request.workDirectory());
    } catch (IOException e) {
      throw new ToolchainException("The Java bindings read the header with castxml, which cannot be run (" + castxml
          + "): apt-get install castxml, or set kernel.castxml to its path.", e);
    }
    if (!parsed.succeeded()) {
      throw new BuildFailureException("castxml could not read " + request.header() + ":\n" + parsed.output().strip());
    }
    Path include = request.includeDirectory().toRealPath();
    CHeader header = CastXmlReader.read(xml, file -> {
      try {
        return file.toRealPath().startsWith(include);
      } catch (IOException e) {
        return false;
      }
    });
    List<Pattern> exports = request.exports().stream().map(ExportAudit::glob).toList();
    List<CHeader.Function> functions = header.functions().stream()
        .filter(f -> exports.isEmpty() || exports.stream().anyMatch(p -> p.matcher(f.name()).matches())).toList();
    if (functions.isEmpty()) {
      throw new BuildFailureException("No function declared in " + request.header().getFileName() + " matches the"
          + " exports of lib" + request.library() + ".so (" + String.join(", ", request.exports()) + "): check"
          + " <java><header>, or the library's <exports>.");
    }
    List<String> problems = new ArrayList<>();
    List<String> warnings = new ArrayList<>();
    Map<String, CHeader.Struct> passed = new LinkedHashMap<>();
    Map<String, CHeader.Struct> declared = new LinkedHashMap<>();
    header.structs().forEach(s -> declared.put(s.name(), s));
    StructsPassed structs = new StructsPassed(declared, passed, problems, warnings);
    for (CHeader.Function f : functions) {
      if (f.variadic() && f.returns() instanceof CType.Struct s) {
        problems.add(f.location() + ": " + f.name() + " takes variable arguments (...) and returns a struct by value ("
            + s.cName() + "), which the binding's variadic call does not support: return it through a pointer"
            + " parameter");
      }
      structs.check(f.returns(), f.location() + ": " + f.name() + " returns ");
      for (CHeader.Parameter p : f.parameters()) {
        structs.check(p.type(), f.location() + ": " + f.name() + "'s parameter '" + p.name() + "' is ");
      }
    }
    if (!problems.isEmpty()) {
      throw new BuildFailureException("The Java bindings of " + request.header().getFileName() + " cannot map "
          + problems.size() + " declaration(s):\n  " + String.join("\n  ", problems) + "\nChange them as each line"
          + " says, or leave the functions out of the library's <exports>.");
    }
    String text = FfmClassWriter.write(request.packageName(), request.className(),
        request.header().getFileName().toString(), request.library(), functions, List.copyOf(passed.values()),
        header.enums());
    Path source = request.sourceDirectory().resolve(request.packageName().replace('.', '/'))
        .resolve(request.className() + ".java");
    byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
    boolean same = !AtomicFiles.writeIfChanged(source, bytes);
    int constants = header.enums().stream().mapToInt(e -> e.constants().size()).sum();
    return new Result(source, functions.size(), passed.size(), constants, !same, List.copyOf(warnings));
  }

  /**
   * The structs and unions the exported functions pass, by pointer or by value, with those they
   * hold by value in turn: each gets a class. What cannot be mapped is a problem; a bit-field a
   * warning, since the struct's layout pads over it and the rest of the struct still works.
   */
  private record StructsPassed(Map<String, CHeader.Struct> declared, Map<String, CHeader.Struct> passed,
      List<String> problems, List<String> warnings) {
    void check(CType type, String what) {
      if (type instanceof CType.Unmappable u) {
        problems.add(what + u.why());
      } else if (type instanceof CType.Struct s) {
        if (!declared.containsKey(s.cName())) {
          problems.add(what + "a struct held by value (" + s.cName() + ") that the library's headers do not declare:"
              + " pass it through a pointer");
        } else {
          add(declared.get(s.cName()));
        }
      } else if (type instanceof CType.Array a) {
        check(a.element(), what + "an array of ");
      } else if (type instanceof CType.Pointer p && declared.containsKey(p.pointee())) {
        add(declared.get(p.pointee()));
      }
    }

    private void add(CHeader.Struct struct) {
      if (passed.containsKey(struct.name())) {
        return;
      }
      passed.put(struct.name(), struct); // before its fields: a struct may point to its own kind
      for (CHeader.Field field : struct.fields()) {
        if (field.type() instanceof CType.BitField b) {
          warnings.add(field.location() + ": field '" + field.name() + "' of " + struct.cDeclaration() + " is a"
              + " bit-field (" + b.width() + (b.width() == 1 ? " bit" : " bits") + "), which no memory layout can"
              + " address: the binding skips it (the struct's layout pads over it) and the other fields work");
        } else {
          check(field.type(), field.location() + ": field '" + field.name() + "' of " + struct.cDeclaration() + " is ");
        }
      }
    }
  }
}
