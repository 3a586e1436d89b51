# expect: ok
# class: unicode_escapes
# why: a Cyrillic homoglyph key is a different key; reading it fails nothing here
# result: 1
d = {"clаss": 1}
result = d["clаss"]
