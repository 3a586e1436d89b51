# expect: stopped
# class: builtins_misuse
# why: str.maketrans with a huge replacement per character
t = "".maketrans({"a": "x" * 10**8})
result = len(("a" * 100).translate(t))
