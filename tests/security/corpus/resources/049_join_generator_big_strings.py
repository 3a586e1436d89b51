# expect: stopped
# class: resources
# why: join over a generator of 10-million-character strings (2 GB)
result = len("".join("x" * 10**7 for i in range(200)))
