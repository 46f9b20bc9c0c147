import java.util.zip.ZipFile

def check = evaluate(new File(itLib, 'checks.groovy'))
def target = new File(basedir, 'target')
def wheels = target.listFiles().findAll { it.name.endsWith('.whl') }
assert wheels.size() == 1: wheels
def wheel = wheels[0]
// 1.2.0-SNAPSHOT is 1.2.0.dev0; exp@GLIBC_2.29 is the newest version the library needs, and the
// oldest policy that allows it is manylinux_2_31 (there is no 2_29 or 2_30).
assert wheel.name == 'answer-1.2.0.dev0-py3-none-manylinux_2_31_x86_64.whl'
def log = check.invocations(basedir)[0]
assert log.contains('[INFO] Wheel: answer-1.2.0.dev0-py3-none-manylinux_2_31_x86_64.whl\n')
assert log.contains("[INFO]     GLIBC_2.29: exp, log (answer/libanswer.so)\n"): 'the log names the symbols that set the tag'
// The build's own floor, in the summary and audit.txt, says the same.
assert log.contains('[INFO]   floor     GLIBC_2.29: exp, log\n'): log
assert new File(basedir, 'target/kernel/audit.txt').text.contains('floor GLIBC_2.29: exp, log\n')

def zip = new ZipFile(wheel)
def names = zip.entries().collect { it.name }
assert names == ['answer/__init__.py', 'answer/_native.py', 'answer/libanswer.so', 'answer-1.2.0.dev0.dist-info/METADATA',
    'answer-1.2.0.dev0.dist-info/WHEEL', 'answer-1.2.0.dev0.dist-info/RECORD']: names
def metadata = zip.getInputStream(zip.getEntry('answer-1.2.0.dev0.dist-info/METADATA')).text
assert metadata.contains('Name: answer\nVersion: 1.2.0.dev0\n')
assert metadata.contains('License: Apache-2.0\n') && metadata.contains('Requires-Python: >=3.8\n')
assert metadata.contains('Project-URL: Homepage, https://example.invalid/answer\n')
assert metadata.contains('Summary: A C kernel library with a ctypes wrapper, published as a wheel.\n')
def wheelFile = zip.getInputStream(zip.getEntry('answer-1.2.0.dev0.dist-info/WHEEL')).text
assert wheelFile.contains('Root-Is-Purelib: false\n') && wheelFile.contains('Tag: py3-none-manylinux_2_31_x86_64\n')
zip.close()
// Modes and times as Python's zipfile reads them: 0755 for the library, 0644 otherwise, and one fixed
// time (no project.build.outputTimestamp here) in the zip's fields, whatever the time zone.
def modes = check.sh(['/usr/bin/python3', '-c', 'import sys, zipfile\nfor i in zipfile.ZipFile(sys.argv[1]).infolist():'
    + ' print(i.filename, oct(i.external_attr >> 16), i.date_time)', wheel.path], basedir)
assert modes.contains('answer/libanswer.so 0o100755 (2000, 1, 1, 0, 0, 0)\n'): modes
assert modes.contains('answer/__init__.py 0o100644 (2000, 1, 1, 0, 0, 0)\n'): modes

// The python-test goal ran src/test/python against the wheel installed in a venv, reported like Surefire.
assert log =~ /\[INFO\] \[1\/1\] PASSED test_answer/
def report = new File(target, 'surefire-reports/TEST-python.xml').text
assert report.contains('tests="1"') && report.contains('failures="0"') && report.contains('name="test_answer"'): report

// Debian's wheel tool verifies every RECORD hash (pip 23 does not).
check.sh(['/usr/bin/python3', '-m', 'wheel', 'unpack', '-d', new File(target, 'unpacked').path, wheel.path], basedir)

// Installed offline into a fresh venv, imported from elsewhere than the project, and called.
def venv = new File(target, 'venv')
check.sh(['/usr/bin/python3', '-m', 'venv', venv.path], basedir)
check.sh([new File(venv, 'bin/pip').path, 'install', '--no-index', '--disable-pip-version-check', wheel.path], target)
def out = check.sh([new File(venv, 'bin/python').path, '-c', 'import answer; print(answer.answer(20))'], target)
assert out.trim() == '42': out
// The wrapper is two lines (from ._native import lib; answer = lib.answer): the generated loader found the library.
def loader = check.sh([new File(venv, 'bin/python').path, '-c', 'import answer._native as n; print(n.path)'], target)
assert loader.trim().endsWith('site-packages/answer/libanswer.so'): loader

// A second checkout, at another path, gives the same bytes.
def second = check.mavenInCopy(basedir, new File(target, 'second-checkout'), localRepositoryPath, ['package', '-DskipTests'])
assert second.contains('BUILD SUCCESS'): second
def again = new File(target, 'second-checkout/target/' + wheel.name)
assert again.isFile(): second
assert again.bytes == wheel.bytes: 'the wheel of a second checkout differs'
true
