def check = evaluate(new File(itLib, 'checks.groovy'))
return check.requireNvcc('wheel-stub-runtime') && check.runsWhen(check.pythonReady(), 'wheel-stub-runtime',
    '/usr/bin/python3 lacks venv, ensurepip or the wheel tool (apt-get install python3-venv python3-wheel)')
