# expect: reject
# class: builtins_misuse
# why: compile may not be mentioned
result = str(compile("1", "<x>", "eval"))
