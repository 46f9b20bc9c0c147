def check = evaluate(new File(itLib, 'checks.groovy'))
def runs = check.invocations(basedir)
def report = new File(basedir, 'target/surefire-reports/TEST-counter.xml')

// 1: the kernel packaging runs the test goal in the test phase; the failed and the timed-out
// program fail the build, each named.
assert runs[0].contains('Tests run: 4, Failures: 2, Errors: 0, Skipped: 1'): runs[0]
assert runs[0] =~ /\[\d\/4\] FAIL fail \([\d.]+ s\): exit status 3/
assert runs[0] =~ /\[\d\/4\] FAIL hang \([\d.]+ s\): timed out after 3 s \(kernel.test.timeout\); its process group was killed/
assert runs[0] =~ /\[\d\/4\] SKIP skip \([\d.]+ s\): no GPU on this machine/
assert runs[0] =~ /\[\d\/4\] PASS pass/
assert runs[0].contains('There are native test failures: fail (exit status 3), hang (timed out after 3 s')
assert runs[0].contains('BUILD FAILURE')
// The hanging program's child went with it.
def sleepers = new File('/proc').listFiles().findAll { it.name ==~ /\d+/ }.findAll {
  def cmdline = new File(it, 'cmdline')
  cmdline.canRead() && cmdline.bytes.collect { it == 0 ? ' ' : (char) it }.join('').contains('sleep 4321')
}
assert sleepers.isEmpty(): 'the process group was killed'

// 2: kernel.test selects by name.
assert runs[1].contains('Tests run: 1, Failures: 0, Errors: 0, Skipped: 0'): runs[1]
assert runs[1].contains('BUILD SUCCESS')

// 3: -DskipTests builds the programs and runs none.
assert runs[2].contains('Tests are skipped (skipTests)')
assert !(runs[2] =~ /\[\d\/\d\] (PASS|FAIL|SKIP)/)

// 4: nothing changed: no program compiled or linked again; the failures are reported, the build passes.
assert runs[3].contains('Test programs: 0 compiled, 5 up to date, 0 linked, 4 up to date'): runs[3]
assert runs[3].contains('Tests run: 4, Failures: 2, Errors: 0, Skipped: 1')
assert runs[3].contains('maven.test.failure.ignore=true: the build goes on')
assert runs[3].contains('BUILD SUCCESS')
def xml = new groovy.xml.XmlSlurper().parse(report)
assert xml.@tests == '4' && xml.@failures == '2' && xml.@errors == '0' && xml.@skipped == '1'
assert xml.testcase.size() == 4
def byName = xml.testcase.collectEntries { [(it.@name.text()): it] }
assert byName.keySet() == ['fail', 'hang', 'pass', 'skip'] as Set
assert byName.skip.skipped.@message == 'no GPU on this machine'
assert byName.fail.failure.@message == 'exit status 3'
assert byName.fail.failure.text().contains('FAILED: counter_next(1) is 3')
assert byName.fail.'system-out'.text().contains('checking the counter')
assert byName.hang.failure.@type == 'timeout'
assert byName.pass.children().findAll { it.name() in ['failure', 'error', 'skipped'] }.isEmpty()
assert byName.pass.'system-out'.text().contains('ok: counter_next(COUNTER_START) is 41')

// 5: maven.test.skip: nothing built, nothing run.
assert runs[4].contains('Native tests are skipped (maven.test.skip=true)'): runs[4]
assert !runs[4].contains('Test programs:')
assert runs[4].contains('BUILD SUCCESS')
true
