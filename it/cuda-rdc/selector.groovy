def check = evaluate(new File(itLib, 'checks.groovy'))
if (!check.nvccInstalled()) println 'SKIPPED cuda-rdc: nvcc is not installed'
return check.nvccInstalled()
