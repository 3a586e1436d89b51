# expect: stopped
# class: resources
# why: 10**10**8 is a 330-million-bit integer
result = 10**10**8
