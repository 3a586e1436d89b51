# expect: stopped
# class: crash_inputs
# why: decoding invalid UTF-8 with surrogateescape
result = b"\xff\xc3\x28".decode("utf-8", "surrogateescape")
