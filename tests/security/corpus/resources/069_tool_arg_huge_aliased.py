# expect: stopped
# class: resources
# why: a tool argument of 10**12 aliased items
x = ["q"] * 10**6
await goto_home()
y = await search(query=[x] * 10**6)
result = 1
