# expect: stopped
# class: resources
# why: failed calls with big arguments, caught in a loop, each kept by the parent; the run-wide argument bound stops it
s = "x" * 900000
n = 0
for i in range(80):
    try:
        await search(query=[s])
    except Exception:
        n += 1
result = n
