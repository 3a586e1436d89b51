# expect: ok
# class: interrupts
# why: a loop inside a finally block may break out of itself; only leaving the finally block is refused
# result: [1, 0]
seen = []
try:
    seen.append(1)
finally:
    for i in range(3):
        seen.append(0)
        break
result = seen
