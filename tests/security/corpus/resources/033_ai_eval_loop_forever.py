# expect: stopped
# class: resources
# why: an endless loop of ai_eval calls
while True:
    x = await ai_eval("again {n}", n=1)
result = 1
