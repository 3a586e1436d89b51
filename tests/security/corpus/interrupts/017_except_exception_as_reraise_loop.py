# expect: stopped
# class: interrupts
# why: catching and re-entering the loop after every error
n = 0
while True:
    try:
        n += 1
        raise ValueError("again")
    except Exception as e:
        n += 1
result = n
