// The Java module's JDK through Maven toolchains: toolchains.xml names the JDK 22+ the selector found.
def check = evaluate(new File(itLib, 'checks.groovy'))
def jdk = check.modernJdk()
new File(basedir, 'toolchains.xml').text = """<?xml version="1.0" encoding="UTF-8"?>
<toolchains>
  <toolchain>
    <type>jdk</type>
    <provides><version>${jdk.version}</version></provides>
    <configuration><jdkHome>${jdk.home}</jdkHome></configuration>
  </toolchain>
</toolchains>
"""
true
