# expect: stopped
# class: resources
# why: split of a huge string into a huge list
result = len((" " * 10**9).split(" "))
