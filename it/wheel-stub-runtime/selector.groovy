def check = evaluate(new File(itLib, 'checks.groovy'))
check.requirePython('wheel-stub-runtime') && check.requireNvcc('wheel-stub-runtime')
