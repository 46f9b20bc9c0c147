def check = evaluate(new File(itLib, 'checks.groovy'))
def run = check.invocations(basedir)[0]
assert run.contains('Archive prebuilt: 3 members')
def out = check.runC(basedir, '#include <stdio.h>\nint linked_sum(void);\nint main(void) { printf("%d\\n", linked_sum()); return 0; }\n',
    new File(basedir, 'target/kernel'), 'linked')
assert out.trim() == '6'
true
