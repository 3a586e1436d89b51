# expect: stopped
# class: builtins_misuse
# why: str.maketrans with a result object as the table
await goto_home()
stores = await list_stores(section='Best near you')
t = "".maketrans({"a": "b"})
result = "abc".translate(stores)
