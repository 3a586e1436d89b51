# expect: stopped
# class: foreign_assign
# why: assign an attribute onto a str
x = "abc"
x.upper = x.lower
result = x.upper()
