def check = evaluate(new File(itLib, 'checks.groovy'))
def runs = check.invocations(basedir)
assert runs[0].contains('Dependency kanotinstalled not found (optional): 1 source(s) that need it dropped: gpu_comm.c')
assert check.compileCounts(runs[0]) == [compiled: 1, upToDate: 0]
assert runs[1].contains("Required dependency 'kanotinstalled' not found. Searched:")
assert runs[1].contains('multiarch ' + new File(basedir, 'no-such-root/usr').path)
assert runs[1].contains('point KANOTINSTALLED_DIR (or _INCLUDE_PATH and _LIBRARY_PATH) at it')
true
