def check = evaluate(new File(itLib, 'checks.groovy'))
def run = check.invocations(basedir)[0]
assert run.contains('Device link: nvcc -dlink over 1 input(s) -> rdc_dlink.o')
def lib = new File(basedir, 'target/kernel/librdc.so').path
// Each export carries the version node (rdc_scale@@RDC_1); ld.bfd adds the node itself as an absolute symbol.
def exported = check.sh(['nm', '-D', '--defined-only', lib], basedir).readLines()*.tokenize(' ')
    .findAll { it[-2] != 'A' }.collect { it.last() }
assert exported == ['rdc_scale@@RDC_1']: "only the API is exported, found ${exported}"
// The device code is really in there: registration of both translation units, kept local.
def all = check.sh(['nm', lib], basedir)
assert (all =~ /__cudaRegisterLinkedBinary_\w+_twice_cu/).find()
assert (all =~ /__cudaRegisterLinkedBinary_\w+_scale_cu/).find()
true
