def check = evaluate(new File(itLib, 'checks.groovy'))
return check.requireNvcc('cuda-rdc')
