# expect: reject
# class: syntax
# why: a type alias (type X = ...) mentions type
type X = int
result = 1
