def check = evaluate(new File(itLib, 'checks.groovy'))
return check.runsWhen(check.pythonReady(), 'wheel-kernel-packaging',
    '/usr/bin/python3 lacks venv, ensurepip or the wheel tool (apt-get install python3-venv python3-wheel)')
