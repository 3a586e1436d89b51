# expect: reject
# class: interrupts
# why: except* (TryStar) is not in the allow-list
try:
    pass
except* ValueError:
    pass
result = 1
