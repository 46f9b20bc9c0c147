package io.github.kernelarchive.javabinding;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.w3c.dom.NodeList;
import org.xml.sax.SAXException;

/**
 * Reads castxml's XML ({@code --castxml-output=1}) of a header into a {@link CHeader}: only what
 * is declared in the library's own headers ({@code ours}), never what system headers declare. The
 * JDK's own XML parser reads it: no dependency, and castxml (not a hand-written C parser) did the
 * understanding of C.
 */
final class CastXmlReader {
  private final Map<String, Element> byId = new HashMap<>();
  private final Map<String, String> files = new HashMap<>();
  /** Anonymous structs and enums named by the typedef that names them ({@code typedef struct {…} x;}). */
  private final Map<String, String> typedefNames = new HashMap<>();

  private CastXmlReader() {}

  static CHeader read(Path xml, Predicate<Path> ours) throws IOException {
    CastXmlReader reader = new CastXmlReader();
    Element root;
    try {
      DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
      factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
      root = factory.newDocumentBuilder().parse(xml.toFile()).getDocumentElement();
    } catch (ParserConfigurationException | SAXException e) {
      throw new IOException(xml + " is not castxml's XML: " + e.getMessage(), e);
    }
    List<Element> all = children(root);
    for (Element element : all) {
      reader.byId.put(element.getAttribute("id"), element);
      if (element.getTagName().equals("File")) {
        reader.files.put(element.getAttribute("id"), element.getAttribute("name"));
      }
    }
    for (Element element : all) {
      if (element.getTagName().equals("Typedef")) {
        Element target = reader.strip(element.getAttribute("type"));
        if (target != null && target.getAttribute("name").isEmpty()) {
          reader.typedefNames.putIfAbsent(target.getAttribute("id"), element.getAttribute("name"));
        }
      }
    }
    List<CHeader.Function> functions = new ArrayList<>();
    List<CHeader.Struct> structs = new ArrayList<>();
    List<CHeader.Enum> enums = new ArrayList<>();
    for (Element element : all) {
      String file = reader.files.get(element.getAttribute("file"));
      if (file == null || !ours.test(Path.of(file))) {
        continue;
      }
      switch (element.getTagName()) {
        case "Function" -> functions.add(reader.function(element));
        case "Struct", "Union" -> structs.add(reader.struct(element));
        case "Enumeration" -> enums.add(reader.enumeration(element));
        default -> { }
      }
    }
    return new CHeader(functions, structs, enums);
  }

  private CHeader.Function function(Element element) {
    List<CHeader.Parameter> parameters = new ArrayList<>();
    boolean variadic = false;
    int n = 0;
    for (Element child : children(element)) {
      if (child.getTagName().equals("Argument")) {
        String name = child.getAttribute("name");
        parameters.add(new CHeader.Parameter(name.isEmpty() ? "arg" + n : name, type(child.getAttribute("type"))));
        n++;
      } else if (child.getTagName().equals("Ellipsis")) {
        variadic = true;
      }
    }
    return new CHeader.Function(element.getAttribute("name"), type(element.getAttribute("returns")), parameters, variadic,
        location(element));
  }

  private CHeader.Struct struct(Element element) {
    List<CHeader.Field> fields = new ArrayList<>();
    for (String member : element.getAttribute("members").split("\\s+")) {
      Element field = byId.get(member);
      if (field == null || !field.getTagName().equals("Field")) {
        continue;
      }
      CType type = field.hasAttribute("bits") ? new CType.BitField(Integer.parseInt(field.getAttribute("bits")))
          : type(field.getAttribute("type"));
      fields.add(new CHeader.Field(field.getAttribute("name"), type, bits(field, "offset") / 8,
          size(field.getAttribute("type")) / 8, location(field)));
    }
    return new CHeader.Struct(name(element), bits(element, "size") / 8, bits(element, "align") / 8, fields,
        location(element), element.getTagName().equals("Union"), element.getAttribute("name").isEmpty());
  }

  private CHeader.Enum enumeration(Element element) {
    List<CHeader.Constant> constants = new ArrayList<>();
    for (Element value : children(element)) {
      if (value.getTagName().equals("EnumValue")) {
        constants.add(new CHeader.Constant(value.getAttribute("name"), Long.parseLong(value.getAttribute("init"))));
      }
    }
    return new CHeader.Enum(name(element), constants);
  }

  /** The type {@code id} names, through typedefs, qualifiers and elaborations. */
  private CType type(String id) {
    Element element = strip(id);
    if (element == null) {
      return new CType.Unmappable("a type castxml did not describe (" + id + ")");
    }
    return switch (element.getTagName()) {
      case "FundamentalType" -> fundamental(element.getAttribute("name"));
      case "PointerType" -> {
        Element pointee = strip(element.getAttribute("type"));
        yield new CType.Pointer(pointee == null ? "?" : name(pointee));
      }
      case "Enumeration" -> CType.INT;
      case "Struct", "Union" -> new CType.Struct(name(element));
      case "ArrayType" -> array(element);
      default -> new CType.Unmappable("a " + element.getTagName());
    };
  }

  /** castxml writes {@code int x[4]} as min 0, max 3; a flexible array member has no max. */
  private CType array(Element element) {
    String max = element.getAttribute("max");
    if (max.isEmpty()) {
      return new CType.Unmappable("a flexible array member, whose length C does not know (pass its elements through a"
          + " pointer)");
    }
    return new CType.Array(type(element.getAttribute("type")), Long.parseLong(max) - bits(element, "min") + 1);
  }

  private static CType fundamental(String name) {
    return switch (name) {
      case "void" -> new CType.Void();
      case "char", "signed char", "unsigned char" -> new CType.Scalar("JAVA_BYTE", "byte");
      case "short int", "short unsigned int" -> new CType.Scalar("JAVA_SHORT", "short");
      case "int", "unsigned int" -> CType.INT;
      case "long int", "long unsigned int", "long long int", "long long unsigned int" -> CType.LONG;
      case "float" -> new CType.Scalar("JAVA_FLOAT", "float");
      case "double" -> new CType.Scalar("JAVA_DOUBLE", "double");
      case "_Bool", "bool" -> new CType.Scalar("JAVA_BOOLEAN", "boolean");
      default -> new CType.Unmappable("'" + name + "', which Java has no type for (declare double or a fixed-width"
          + " integer instead, or pass it through a pointer)");
    };
  }

  /** Past typedefs, const/volatile and {@code struct x} elaborations. */
  private Element strip(String id) {
    Element element = byId.get(id);
    while (element != null && switch (element.getTagName()) {
      case "Typedef", "CvQualifiedType", "ElaboratedType" -> true;
      default -> false;
    }) {
      element = byId.get(element.getAttribute("type"));
    }
    return element;
  }

  /** In bits; castxml gives an array's element size and bounds rather than its own size. */
  private long size(String typeId) {
    Element element = strip(typeId);
    if (element == null) {
      return 0;
    }
    if (element.getTagName().equals("ArrayType") && !element.getAttribute("max").isEmpty()) {
      return (Long.parseLong(element.getAttribute("max")) - bits(element, "min") + 1) * size(element.getAttribute("type"));
    }
    return element.getAttribute("size").isEmpty() ? 0 : Long.parseLong(element.getAttribute("size"));
  }

  private String name(Element element) {
    String name = element.getAttribute("name");
    return name.isEmpty() ? typedefNames.getOrDefault(element.getAttribute("id"), "anonymous") : name;
  }

  private String location(Element element) {
    String file = files.getOrDefault(element.getAttribute("file"), "?");
    return Path.of(file).getFileName() + ":" + element.getAttribute("line");
  }

  private static long bits(Element element, String attribute) {
    String value = element.getAttribute(attribute);
    return value.isEmpty() ? 0 : Long.parseLong(value);
  }

  private static List<Element> children(Element parent) {
    List<Element> elements = new ArrayList<>();
    NodeList nodes = parent.getChildNodes();
    for (int i = 0; i < nodes.getLength(); i++) {
      if (nodes.item(i).getNodeType() == Node.ELEMENT_NODE) {
        elements.add((Element) nodes.item(i));
      }
    }
    return elements;
  }
}
