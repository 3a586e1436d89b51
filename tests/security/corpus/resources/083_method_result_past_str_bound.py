# expect: stopped
# class: resources
# why: upper() makes each U+FB03 ligature three letters, so the result passes the string bound the input kept
result = ("\ufb03" * 4000000).upper()
