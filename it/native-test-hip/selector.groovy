def check = evaluate(new File(itLib, 'checks.groovy'))
return check.requireTool('native-test-hip', 'hipcc', 'hipcc')
