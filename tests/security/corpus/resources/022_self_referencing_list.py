# expect: stopped
# class: resources
# why: a list that contains itself as the result
a = [1]
a.append(a)
result = a
