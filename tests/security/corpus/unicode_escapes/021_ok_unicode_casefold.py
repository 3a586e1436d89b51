# expect: ok
# class: unicode_escapes
# why: casefold and upper on non-ASCII text
# result: ['strasse', 'É']
result = ["Straße".casefold(), "é".upper()]
