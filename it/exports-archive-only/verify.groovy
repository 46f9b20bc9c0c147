def check = evaluate(new File(itLib, 'checks.groovy'))
def run = check.invocations(basedir)[0]
assert run.contains("<export> pattern 't_kernel*' matches only archive members' symbols (t_kernel_tile in libkernels.a(tile.c.o))")
assert run.contains('archives are private by design')
assert run.contains('Export a wrapper from a host source in <sources>')
assert run.contains('1 problem(s)'): 'api_* is fine: api_tile is exported'
true
