package io.github.kernelarchive.deps;

import java.nio.file.Path;
import java.util.List;

/**
 * A runtime to reach through a lazy-loading stub instead of linking it.
 *
 * @param name the dependency's name ({@code cudart}, {@code nvrtc}); names the stub's files
 * @param runtime the runtime found at build time: its dynamic symbol table says what it defines
 * @param sonames tried in order at run time; empty: the SONAME of {@code runtime}
 * @param missingResult what a stubbed function returns when nothing loads, unless it returns a pointer
 * @param incompatible functions whose signature differs between the listed majors: using one fails the build
 * @param headers the runtime's headers, whose declarations say which functions return a pointer
 *     (the stub stage reads their declarations); functions declared in none are taken to return a value
 */
public record StubRequest(String name, Path runtime, List<String> sonames, long missingResult,
    List<String> incompatible, List<Path> headers) {
  public StubRequest {
    sonames = List.copyOf(sonames);
    incompatible = List.copyOf(incompatible);
    headers = List.copyOf(headers);
  }
}
