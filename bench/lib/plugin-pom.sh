# Sourced by the bench scripts: writes the pom of a generated bench project that runs the plugin's
# build goal with the given <configuration> body.
#   plugin_pom <file> <artifactId> <plugin version> <configuration XML> [<executions XML>]
# (the executions default to one of the build goal)
plugin_pom() {
  cat > "$1" <<POM
<?xml version="1.0" encoding="UTF-8"?>
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>bench.kernelarchive</groupId>
  <artifactId>$2</artifactId>
  <version>1.0</version>
  <packaging>pom</packaging>
  <build>
    <plugins>
      <plugin>
        <groupId>io.github.kernelarchive</groupId>
        <artifactId>kernel-archive-maven-plugin</artifactId>
        <version>$3</version>
        <executions>${5:-<execution><goals><goal>build</goal></goals></execution>}</executions>
        <configuration>
$4
        </configuration>
      </plugin>
    </plugins>
  </build>
</project>
POM
}
