def check = evaluate(new File(itLib, 'checks.groovy'))
def target = new File(basedir, 'target')
def wheel = target.listFiles().find { it.name.endsWith('.whl') }
// 1.0-rc1 is 1.0rc1; the stable ABI from 3.9 on.
assert wheel != null && wheel.name ==~ /fastsum-1\.0rc1-cp39-abi3-manylinux_2_\d+_x86_64(\.manylinux\w+)?\.whl/: target.list()

def unpacked = new File(target, 'unpacked')
check.sh(['/usr/bin/python3', '-m', 'wheel', 'unpack', '-d', unpacked.path, wheel.path], basedir)
def module = new File(unpacked, 'fastsum-1.0rc1/fastsum/_fastsum.abi3.so')
assert module.isFile(): unpacked.listFiles()
// Only PyInit and the C API are exported; Python's own symbols stay undefined (the interpreter has them).
def dynsym = check.sh(['nm', '-D', '--defined-only', module.path], basedir)
def exported = (dynsym =~ /(?m)^\S+ [TDB] (\S+)$/).collect { it[1].replaceAll(/@.*/, '') }.findAll { !it.startsWith('FASTSUM_') }
assert exported.sort() == ['PyInit__fastsum', 'fs_sum']: dynsym
assert !check.sh(['readelf', '-d', module.path], basedir).contains('libpython'): 'an extension module never needs libpython'
def wheelFile = new File(unpacked, 'fastsum-1.0rc1/fastsum-1.0rc1.dist-info/WHEEL').text
assert wheelFile =~ /Tag: cp39-abi3-manylinux_2_\d+_x86_64\n/

def site = check.venvWith(new File(target, 'venv'), [wheel])
def out = check.sh([new File(target, 'venv/bin/python').path, '-c',
    'from fastsum import _fastsum; print(_fastsum.sum(100), hex(_fastsum.limited_api()))'], target)
assert out.trim() == '5050 0x3090000': out
true
