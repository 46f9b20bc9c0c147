def check = evaluate(new File(itLib, 'checks.groovy'))
def run = check.invocations(basedir)[0]
assert run.contains('[1/1] CC sub/a.c'): run
def out = check.runC(basedir, '#include <stdio.h>\nint cyc_sum(void);\nint main(void) { printf("%d\\n", cyc_sum()); return 0; }\n',
    new File(basedir, 'target/kernel'), 'cyc')
assert out.trim() == '3'
true
