def check = evaluate(new File(itLib, 'checks.groovy'))
def run = check.invocations(basedir)[0]
// app's device link took its own object and dev-lib's archives as unpacked from its bundle (the kernels' and the
// host one): the device call resolved there.
def dlink = run.readLines().find { it.contains('Device link: nvcc -dlink over') && it.contains('app_dlink.o') }
assert dlink != null && dlink.contains('3 input(s)'): run
def lib = new File(basedir, 'app/target/kernel/libapp.so')
def exported = check.sh(['nm', '-D', '--defined-only', lib.path], basedir).readLines()*.tokenize(' ')
    .findAll { it[-2] != 'A' }.collect { it.last() }
assert exported == ['app_run@@APP_1']: exported
// The device code of both is in app's library, registered privately.
def all = check.sh(['nm', lib.path], basedir)
assert (all =~ /__cudaRegisterLinkedBinary_\w+_twice_cu/).find(): 'dev-lib device code linked in'
assert (all =~ /__cudaRegisterLinkedBinary_\w+_app_cu/).find()
true
