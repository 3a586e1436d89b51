# expect: reject
# class: foreign_assign
# why: a for-loop target that is an attribute of a result
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
for stores.evil in [c]:
    pass
result = str(stores.evil)
