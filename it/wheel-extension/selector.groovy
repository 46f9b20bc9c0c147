def check = evaluate(new File(itLib, 'checks.groovy'))
return check.runsWhen(check.pythonReady(), 'wheel-extension',
    '/usr/bin/python3 lacks venv, ensurepip or the wheel tool (apt-get install python3-venv python3-wheel)') &&
    check.runsWhen(new File('/usr/bin/python3-config').exists(), 'wheel-extension',
        "Debian's Python headers are not installed (apt-get install python3-dev)")
