# expect: stopped
# class: resources
# why: 200,000 fields each filled with a 300,000-character value: the parent would build a 60 GB prompt
x = "y" * 300000
p = "{x}" * 200000
result = await ai_eval(p, x=x)
