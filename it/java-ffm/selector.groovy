// Needs a JDK 22 or newer (FFM) for the Java module, and castxml for the bindings.
def check = evaluate(new File(itLib, 'checks.groovy'))
def jdk = check.modernJdk()
if (!check.runsWhen(jdk != null, 'java-ffm', 'no JDK 22+ under /usr/lib/jvm or JDK22_HOME (Debian: openjdk-25-jdk from trixie, or Temurin 25)')) {
  return false
}
return check.requireTool('java-ffm', 'castxml', 'castxml')
