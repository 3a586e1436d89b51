# expect: ok
# class: builtins_misuse
# why: isinstance with plain builtin types
# result: [True, True, False]
result = [isinstance(1, int), isinstance("a", (int, str)), isinstance(1.0, bool)]
