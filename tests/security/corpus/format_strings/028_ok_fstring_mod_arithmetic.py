# expect: ok
# class: format_strings
# why: the % operator on numbers is arithmetic, not formatting
# result: [2, 2, 1.5]
result = [17 % 5, -7 % 3, 7.5 % 2]
