# expect: reject
# class: syntax
# why: an import inside a loop
for i in range(1):
    import shutil
result = 1
