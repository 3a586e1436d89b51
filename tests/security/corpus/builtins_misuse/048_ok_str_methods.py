# expect: ok
# class: builtins_misuse
# why: plain str methods: replace, split, join, strip, title
# result: 'X-B'
result = "-".join(" a b ".strip().split(" ")).replace("a", "x").title()
