# expect: stopped
# class: model_methods
# why: the result's class via get(); its parse_raw unpickles os.system
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
x = c.parse_raw(b"cos\nsystem\n(S'touch MARKER_PATH'\ntR.", proto='pickle', allow_pickle=True)
result = 1
