def check = evaluate(new File(itLib, 'checks.groovy'))
def runs = check.invocations(basedir)
assert runs[0].contains('Tests run: 1, Failures: 0, Errors: 0, Skipped: 0'): runs[0]
assert runs[1].contains('Building libsums.so with -fsanitize=address,undefined in'): runs[1]
assert runs[1].contains('Tests run: 1, Failures: 1, Errors: 0, Skipped: 0')
def xml = new groovy.xml.XmlSlurper().parse(new File(basedir, 'target/surefire-reports/TEST-sums.xml'))
def failure = xml.testcase.find { it.@name == 'test_sums' }.failure
assert failure.@message.text().startsWith('AddressSanitizer: heap-buffer-overflow'): failure.@message.text()
assert failure.text().contains('sums_total')
// The normal library was left as it was built: no sanitizer runtime in it.
def needed = check.sh(['sh', '-c', 'readelf -d target/kernel/libsums.so'], basedir)
assert !needed.contains('libasan'): needed
assert check.sh(['sh', '-c', 'readelf -d target/kernel-sanitize/libsums.so'], basedir).contains('libasan')
true
