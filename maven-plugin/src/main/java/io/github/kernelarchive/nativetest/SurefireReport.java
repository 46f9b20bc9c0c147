package io.github.kernelarchive.nativetest;

import io.github.kernelarchive.nativetest.TestResult.Outcome;
import io.github.kernelarchive.util.AtomicFiles;
import java.io.IOException;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.codehaus.plexus.util.xml.PrettyPrintXMLWriter;
import org.codehaus.plexus.util.xml.XMLWriter;

/**
 * Writes test results in Surefire's XML format ({@code TEST-<suite>.xml}), which CI dashboards
 * (Jenkins, GitLab, GitHub's test reporters) read: one testsuite with its counts and time, one
 * testcase per program, a failure, error or skipped element with its message, and each program's
 * standard output and error. Plexus Utils writes the XML (escaping); characters XML 1.0 cannot
 * hold (a program's stray control bytes) are dropped first.
 */
public final class SurefireReport {
  private SurefireReport() {}

  /** What the report counts, as Surefire's summary line prints it. */
  public record Counts(int run, int failures, int errors, int skipped) {
    public static Counts of(List<TestResult> results) {
      return new Counts(results.size(), count(results, Outcome.FAILED), count(results, Outcome.ERROR),
          count(results, Outcome.SKIPPED));
    }

    private static int count(List<TestResult> results, Outcome outcome) {
      return (int) results.stream().filter(r -> r.outcome() == outcome).count();
    }

    /** {@code Tests run: 4, Failures: 2, Errors: 0, Skipped: 1}, as Surefire prints it. */
    @Override
    public String toString() {
      return "Tests run: " + run + ", Failures: " + failures + ", Errors: " + errors + ", Skipped: " + skipped;
    }
  }

  /** The report's file for {@code suite} in {@code directory}. */
  public static Path file(Path directory, String suite) {
    return directory.resolve("TEST-" + suite + ".xml");
  }

  /** Writes the report (temporary file, then rename); {@code properties} describe the run. */
  public static Path write(Path directory, String suite, List<TestResult> results, Map<String, String> properties)
      throws IOException {
    StringWriter text = new StringWriter();
    text.write("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    XMLWriter xml = new PrettyPrintXMLWriter(text, "  ");
    Counts counts = Counts.of(results);
    xml.startElement("testsuite");
    xml.addAttribute("name", suite);
    xml.addAttribute("time", seconds(results.stream().mapToDouble(TestResult::seconds).sum()));
    xml.addAttribute("tests", Integer.toString(counts.run()));
    xml.addAttribute("errors", Integer.toString(counts.errors()));
    xml.addAttribute("skipped", Integer.toString(counts.skipped()));
    xml.addAttribute("failures", Integer.toString(counts.failures()));
    xml.startElement("properties");
    for (Map.Entry<String, String> property : properties.entrySet()) {
      xml.startElement("property");
      xml.addAttribute("name", property.getKey());
      xml.addAttribute("value", clean(property.getValue()));
      xml.endElement();
    }
    xml.endElement();
    for (TestResult result : results) {
      xml.startElement("testcase");
      xml.addAttribute("name", result.name());
      xml.addAttribute("classname", suite);
      xml.addAttribute("time", seconds(result.seconds()));
      switch (result.outcome()) {
        case FAILED -> problem(xml, "failure", result);
        case ERROR -> problem(xml, "error", result);
        case SKIPPED -> {
          xml.startElement("skipped");
          xml.addAttribute("message", clean(result.message()));
          xml.endElement();
        }
        case PASSED -> { }
      }
      output(xml, "system-out", result.stdout());
      output(xml, "system-err", result.stderr());
      xml.endElement();
    }
    xml.endElement();
    text.write("\n");
    Path file = file(directory, suite);
    AtomicFiles.write(file, text.toString().getBytes(StandardCharsets.UTF_8));
    return file;
  }

  private static void problem(XMLWriter xml, String element, TestResult result) {
    xml.startElement(element);
    xml.addAttribute("message", clean(result.message()));
    xml.addAttribute("type", result.message() != null && result.message().startsWith("timed out") ? "timeout"
        : element.equals("error") ? "not run" : "exit status");
    if (result.detail() != null && !result.detail().isEmpty()) {
      xml.writeText(clean(result.detail()));
    }
    xml.endElement();
  }

  private static void output(XMLWriter xml, String element, String text) {
    if (text != null && !text.isEmpty()) {
      xml.startElement(element);
      xml.writeText(clean(text));
      xml.endElement();
    }
  }

  /** Drops what XML 1.0 cannot hold: control characters other than tab, newline and return. */
  static String clean(String text) {
    if (text == null) {
      return "";
    }
    StringBuilder kept = new StringBuilder(text.length());
    text.codePoints().filter(c -> c == '\t' || c == '\n' || c == '\r' || (c >= 0x20 && c != 0xFFFE && c != 0xFFFF))
        .forEach(kept::appendCodePoint);
    return kept.toString();
  }

  private static String seconds(double seconds) {
    return String.format(Locale.ROOT, "%.3f", seconds);
  }
}
