# expect: stopped
# class: resources
# why: a 90 MB result would be read and decoded by the parent; it is refused in the child with the size
s = "x" * 9000000
result = [s] * 10
