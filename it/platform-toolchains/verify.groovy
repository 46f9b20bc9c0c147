def check = evaluate(new File(itLib, 'checks.groovy'))
def runs = check.invocations(basedir)

// 1: each platform's compiles and link went through its own <toolchain>: the vendor's wrappers for
// aarch64 (C++ source, C test program, the link through the C++ driver), the host wrapper for x86_64's C++.
def calls = new File(basedir, 'tools.log').readLines()
assert calls.any { it.startsWith('vendor-g++ ') && it.contains('hello.cpp') }: calls
assert calls.any { it.startsWith('vendor-gcc ') && it.contains('test_hello.c') }: calls
assert calls.any { it.startsWith('vendor-g++ ') && it.contains('-shared') }: calls
assert calls.any { it.startsWith('host-g++ ') && it.contains('hello.cpp') }: calls
assert !calls.any { it.startsWith('host-g++ ') && it.contains('aarch64') }: calls

def arm = new File(basedir, 'target/kernel-linux-aarch64/libhello.so')
assert check.sh(['readelf', '-h', arm.path], basedir).contains('AArch64')
assert check.sh(['readelf', '-h', new File(basedir, 'target/kernel/libhello.so').path], basedir).contains('X86-64')

// Each test program passed; the aarch64 one, under qemu, saw the vendor sysroot's marker.
def x86Report = new File(basedir, 'target/surefire-reports/TEST-hello.xml').text
def armReport = new File(basedir, 'target/surefire-reports/TEST-hello-linux-aarch64.xml').text
assert x86Report.contains('failures="0"') && x86Report.contains('machine=x86_64 sysroot=none'): x86Report
assert armReport.contains('failures="0"') && armReport.contains('machine=aarch64 sysroot=vendor sysroot'): armReport

// 2: the misspelt platform is named, with the ones that exist.
assert runs[1].contains("<toolchains><toolchain><platform>linux-arm64</platform>: it names 'linux-arm64', which this"
    + ' plugin cannot build for: use linux-x86_64, linux-aarch64.'): runs[1]
true
