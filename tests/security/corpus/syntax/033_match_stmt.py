# expect: reject
# class: syntax
# why: match
match 1:
    case 1:
        result = 1
