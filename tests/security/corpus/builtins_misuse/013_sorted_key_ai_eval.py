# expect: stopped
# class: builtins_misuse
# why: sorted(key=ai_eval): a coroutine function as a key
x = sorted(["a", "b"], key=ai_eval)
result = x
