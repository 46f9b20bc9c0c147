package io.github.kernelarchive.bundle;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class BundleMetadataTest {
  /** Separators, comment marks, spaces, backslashes, line breaks and non-Latin-1 text come back as written. */
  @Test
  void everyValueReadsBackAsWritten() throws Exception {
    BundleMetadata metadata = new BundleMetadata(BundleMetadata.FORMAT, "linux-x86_64", "te", "libte.so.1",
        "TE_1.0", List.of("te_*", " lead", "a=b:c", "#not a comment", "!nor this"),
        List.of("kernels"), "80;90a", true, "static", List.of("libcudart.so.12"),
        List.of("-L/opt/with space/lib", "-l\\back", "line\nbreak\ttab", "\u00e9t\u00e9", "\u6838\u5fc3"), "2.17");
    byte[] bytes = metadata.toBytes();
    assertEquals(metadata, BundleMetadata.parse(bytes, "test"));

    Properties properties = new Properties();
    properties.load(new StringReader(new String(bytes, StandardCharsets.ISO_8859_1)));
    assertEquals(" lead", properties.getProperty("exports.0001"), "the JDK reads it too");
    assertEquals("\u6838\u5fc3", properties.getProperty("linkFlags.0004"));
  }

  /** One key a line, sorted, no comment: the same description gives the same bytes. */
  @Test
  void theTextIsSortedAndCarriesNoDate() {
    BundleMetadata metadata = new BundleMetadata(BundleMetadata.FORMAT, "linux-x86_64", "mha", "libmha.so", "MHA",
        List.of("mha_*"), List.of("attn"), "", false, "shared", List.of(), List.of(), "");
    String text = new String(metadata.toBytes(), StandardCharsets.ISO_8859_1);
    assertEquals("""
        archives.0000=attn
        cuda.archs=
        cuda.relocatableDeviceCode=false
        cuda.runtime=shared
        exports.0000=mha_*
        format=1
        library=mha
        platform=linux-x86_64
        soname=libmha.so
        symbolVersion=MHA
        """, text);
  }
}
