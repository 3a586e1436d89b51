# expect: stopped
# class: resources
# why: the starred name of an unpacking gets a list built in C with no step counted: a billion items before any bound
*a, = range(10 ** 9)
result = len(a)
