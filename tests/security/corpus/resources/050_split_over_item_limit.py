# expect: stopped
# class: resources
# why: split() making a 5-million-item list, past the item bound
parts = ("a " * 5_000_000).split()
result = len(parts)
