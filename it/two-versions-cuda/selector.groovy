def check = evaluate(new File(itLib, 'checks.groovy'))
if (!check.nvccInstalled()) println 'SKIPPED two-versions-cuda: nvcc is not installed'
return check.nvccInstalled()
