def check = evaluate(new File(itLib, 'checks.groovy'))
return check.requireNvcc('two-versions-cuda')
