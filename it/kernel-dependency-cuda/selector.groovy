def check = evaluate(new File(itLib, 'checks.groovy'))
return check.requireNvcc('kernel-dependency-cuda')
