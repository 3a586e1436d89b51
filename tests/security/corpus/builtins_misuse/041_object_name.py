# expect: reject
# class: builtins_misuse
# why: object may not be mentioned
result = str(object.__subclasses__())
