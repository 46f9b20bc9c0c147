// src/main/native/sub/loop -> .. (a cycle a checkout can hold, e.g. from a vendored tree).
def check = evaluate(new File(itLib, 'checks.groovy'))
check.sh(['ln', '-s', '..', 'src/main/native/sub/loop'], basedir)
true
