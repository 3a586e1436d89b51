# expect: stopped
# class: foreign_assign
# why: set an attribute on a builtin function (len)
len.x = 1
result = 1
