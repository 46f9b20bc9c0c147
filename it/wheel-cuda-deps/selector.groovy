def check = evaluate(new File(itLib, 'checks.groovy'))
check.requirePython('wheel-cuda-deps')
