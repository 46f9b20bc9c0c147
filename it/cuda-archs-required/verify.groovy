def check = evaluate(new File(itLib, 'checks.groovy'))
def run = check.invocations(basedir)[0]
assert run.contains('1 CUDA sources need target architectures: set <cuda><archs> (property kernel.cuda.archs)')
true
