# expect: stopped
# class: frames
# why: raising a safe exception class with no instance
result = 0
raise RuntimeError
