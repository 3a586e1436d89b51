# expect: stopped
# class: interrupts
# why: a refused attribute read, replaced by an IndexError raised in finally and caught, must still stop the run
result = "ran on"
try:
    try:
        x = (1).real
    finally:
        y = [][1]
except IndexError:
    result = "swallowed"
