package io.github.kernelarchive.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Keys are made of length-prefixed parts, whether from a list or fed part by part. */
class HashingTest {

  @Test
  void partsFedOneByOneGiveTheListsKey() {
    String fromList = Hashing.ofStrings(List.of("format 1", "name.o", "prebuilt object abc", "ünï"));
    String fed = new Hashing.Parts(4).add("format 1").add("name.o").add("prebuilt object ", "abc").add("ünï").hash();
    assertEquals(fromList, fed);
  }

  @Test
  void theLengthPrefixKeepsPartsApart() {
    assertNotEquals(Hashing.ofStrings(List.of("ab", "c")), Hashing.ofStrings(List.of("a", "bc")));
    assertNotEquals(new Hashing.Parts(1).add("ab", "c").hash(), new Hashing.Parts(2).add("ab").add("c").hash());
  }

  @Test
  void theBytesHashedAreLengthColonPart() {
    assertEquals(Hashing.of("1:a2:bc0:".getBytes(java.nio.charset.StandardCharsets.UTF_8)),
        Hashing.ofStrings(List.of("a", "bc", "")));
  }
}
