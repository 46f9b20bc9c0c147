def check = evaluate(new File(itLib, 'checks.groovy'))
def run = check.invocations(basedir)[0]
assert run.contains("[ERROR] Failed to execute goal ${'io.github.kernelarchive'}:kernel-archive-maven-plugin") : run
assert run.contains("The version '1.0-M1' (project.version) has no PEP 440 form"): run
assert run.contains('Set <wheel><version> to the Python version to publish'): run
assert !new File(basedir, 'target').list().any { it.endsWith('.whl') || it.endsWith('.tmp') }: 'no wheel, no half-written file'
true
