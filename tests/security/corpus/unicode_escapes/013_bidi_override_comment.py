# expect: stopped
# class: unicode_escapes
# why: a right-to-left override hides code in what looks like a comment
await goto_home()
stores = await list_stores(section='Best near you')
k = "__class__" # ‮ " = k⁦
result = str(stores.get(k))
