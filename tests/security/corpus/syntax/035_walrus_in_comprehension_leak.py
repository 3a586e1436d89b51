# expect: stopped
# class: syntax
# why: a walrus in a comprehension binds a name in the plan scope
result = 0
xs = [(last := i) for i in range(3)]
raise ValueError(str(last))
