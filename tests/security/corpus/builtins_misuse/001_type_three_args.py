# expect: reject
# class: builtins_misuse
# why: type(name, bases, dict) builds classes; type may not be mentioned
T = type("T", (), {})
result = str(T)
