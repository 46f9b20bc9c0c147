def check = evaluate(new File(itLib, 'checks.groovy'))
check.requirePython('wheel-extension') &&
    check.runsWhen(new File('/usr/include/python3.11/Python.h').isFile() || new File('/usr/bin/python3-config').exists(),
        'wheel-extension', 'Python.h is not installed (apt-get install python3-dev)')
