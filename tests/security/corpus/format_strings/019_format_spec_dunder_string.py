# expect: stopped
# class: format_strings
# why: format spec strings do not walk attributes, but the value is a class
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
result = f"{c!s:>20}"
