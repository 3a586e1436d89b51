# expect: stopped
# class: resources
# why: an ai_eval value of 10**12 aliased items
x = [0] * 10**6
result = await ai_eval("{v}", v=[x] * 10**6)
