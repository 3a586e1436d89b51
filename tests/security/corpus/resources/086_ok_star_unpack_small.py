# expect: ok
# class: resources
# why: starred unpacking and list += of small values still work under the guard
# result: [1, [2, 3, 0, 1]]
a, *b = [1, 2, 3]
b += range(2)
result = [a, b]
