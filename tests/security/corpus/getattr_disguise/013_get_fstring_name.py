# expect: stopped
# class: getattr_disguise
# why: a dunder name built by an f-string
await goto_home()
stores = await list_stores(section='Best near you')
u = "_"
c = stores.get(f"{u}{u}class{u}{u}")
result = str(c)
