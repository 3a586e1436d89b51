# expect: stopped
# class: resources
# why: sum(range(10**18)) runs for centuries
result = sum(range(10**18))
