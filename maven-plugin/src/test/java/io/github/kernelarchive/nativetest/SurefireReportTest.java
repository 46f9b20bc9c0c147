package io.github.kernelarchive.nativetest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.github.kernelarchive.nativetest.TestResult.Outcome;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/** The report as a dashboard reads it: parsed back with the JDK's XML parser. */
class SurefireReportTest {
  @TempDir
  Path dir;

  @Test
  void oneTestcasePerProgramWithItsOutcomeAndOutput() throws Exception {
    List<TestResult> results = List.of(
        new TestResult("pass", Outcome.PASSED, null, null, 0.25, "ok <all> & \"fine\"\n", ""),
        new TestResult("fail", Outcome.FAILED, "exit status 3", "FAILED: x\u0007 is 3", 0.5, "x\u0000y\n", "FAILED\n"),
        new TestResult("hang", Outcome.FAILED, "timed out after 3 s (kernel.test.timeout)", "", 3, "", ""),
        new TestResult("skip", Outcome.SKIPPED, "no GPU here", null, 0.01, "", "no GPU here\n"),
        new TestResult("gone", Outcome.ERROR, "could not be started: Permission denied", null, 0, "", ""));
    Path file = SurefireReport.write(dir.resolve("reports"), "mha-cpu", results, Map.of("kernel.test.sanitize", ""));
    assertEquals(dir.resolve("reports/TEST-mha-cpu.xml"), file);
    Document xml = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(file.toFile());
    Element suite = xml.getDocumentElement();
    assertEquals("testsuite", suite.getTagName());
    assertEquals("mha-cpu", suite.getAttribute("name"));
    assertEquals("5", suite.getAttribute("tests"));
    assertEquals("2", suite.getAttribute("failures"));
    assertEquals("1", suite.getAttribute("errors"));
    assertEquals("1", suite.getAttribute("skipped"));
    assertEquals("3.760", suite.getAttribute("time"));
    NodeList cases = suite.getElementsByTagName("testcase");
    assertEquals(5, cases.getLength());
    Element pass = (Element) cases.item(0);
    assertEquals("pass", pass.getAttribute("name"));
    assertEquals("mha-cpu", pass.getAttribute("classname"));
    assertEquals("0.250", pass.getAttribute("time"));
    assertEquals("ok <all> & \"fine\"\n", text(pass, "system-out"), "escaped, and read back as written");
    Element fail = (Element) cases.item(1);
    Element failure = (Element) fail.getElementsByTagName("failure").item(0);
    assertEquals("exit status 3", failure.getAttribute("message"));
    assertEquals("exit status", failure.getAttribute("type"));
    assertEquals("FAILED: x is 3", failure.getTextContent(), "a control character XML cannot hold is dropped");
    assertEquals("xy\n", text(fail, "system-out"));
    assertEquals("timeout", ((Element) ((Element) cases.item(2)).getElementsByTagName("failure").item(0)).getAttribute("type"));
    Element skipped = (Element) ((Element) cases.item(3)).getElementsByTagName("skipped").item(0);
    assertEquals("no GPU here", skipped.getAttribute("message"));
    assertEquals("could not be started: Permission denied",
        ((Element) ((Element) cases.item(4)).getElementsByTagName("error").item(0)).getAttribute("message"));
    assertEquals("Tests run: 5, Failures: 2, Errors: 1, Skipped: 1", SurefireReport.Counts.of(results).toString());
    assertTrue(Files.list(dir.resolve("reports")).allMatch(p -> p.equals(file)), "no temporary file left");
  }

  private static String text(Element testcase, String element) {
    return testcase.getElementsByTagName(element).item(0).getTextContent();
  }
}
