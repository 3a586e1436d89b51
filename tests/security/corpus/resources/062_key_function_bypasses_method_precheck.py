# expect: stopped
# class: resources
# why: sorted(key='x'.ljust) builds a 500-million-character string in C, not through the guard's method check
result = len(sorted([5 * 10**8], key="x".ljust))
