def check = evaluate(new File(itLib, 'checks.groovy'))
def run = check.invocations(basedir)[0]
assert run.contains('Device link: nvcc -dlink over 1 input(s) -> rdc_dlink.o')
def lib = new File(basedir, 'target/kernel/librdc.so').path
def exported = check.sh(['nm', '-D', '--defined-only', lib], basedir).readLines().collect { it.tokenize(' ').last() }
assert exported == ['rdc_scale']: "only the API is exported, found ${exported}"
// The device code is really in there: registration of both translation units, kept local.
def all = check.sh(['nm', lib], basedir)
assert (all =~ /__cudaRegisterLinkedBinary_\w+_twice_cu/).find()
assert (all =~ /__cudaRegisterLinkedBinary_\w+_scale_cu/).find()
true
