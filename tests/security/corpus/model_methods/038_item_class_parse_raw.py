# expect: stopped
# class: model_methods
# why: the item model's class via get(), then parse_raw with pickle
await goto_home()
stores = await list_stores(section='Best near you')
s = stores.items[0]
k = s.get("__class__")
x = k.parse_raw(b"cos\nsystem\n(S'touch MARKER_PATH'\ntR.", proto="pickle", allow_pickle=True)
result = 1
