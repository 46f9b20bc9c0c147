package io.github.kernelarchive.glibc;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * A stand-in of a library glibc 2.34 emptied into libc (libpthread.so.0, libdl.so.2, ...), for
 * the link only: it defines the symbols redirected to it at their old versions, so the linker
 * records them as needed from that library, as a link on an older system would. An older loader
 * then finds them there; a newer one finds them in libc, as with any program built before 2.34.
 * Never shipped: at run time the system's own library of that name is loaded.
 */
final class FormerLibraryStub {
  private FormerLibraryStub() {}

  /** Each symbol as an empty function at its version, a non-default one (mold binds those reliably). */
  static String assembly(List<RedirectPlan.Redirect> redirects) {
    StringBuilder text = new StringBuilder("\t.text\n");
    int n = 0;
    for (RedirectPlan.Redirect redirect : redirects) {
      String local = "ka_glibc_stub_" + n++;
      text.append("\t.globl ").append(local).append("\n\t.type ").append(local).append(", %function\n")
          .append(local).append(":\n\tret\n")
          .append("\t.symver ").append(local).append(", ").append(redirect.symbol()).append('@')
          .append(redirect.version()).append('\n');
    }
    return text.append("\t.section .note.GNU-stack,\"\",%progbits\n").toString();
  }

  /** The version nodes the stub defines. */
  static String versionScript(List<RedirectPlan.Redirect> redirects) {
    Set<String> versions = new TreeSet<>();
    redirects.forEach(r -> versions.add(r.version()));
    StringBuilder text = new StringBuilder();
    versions.forEach(v -> text.append(v).append(" { };\n"));
    return text.toString();
  }
}
