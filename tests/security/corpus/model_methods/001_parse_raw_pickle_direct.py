# expect: reject
# class: model_methods
# why: parse_raw with proto='pickle' unpickles attacker bytes (os.system)
await goto_home()
stores = await list_stores(section='Best near you')
x = stores.parse_raw(b"cos\nsystem\n(S'touch MARKER_PATH'\ntR.", proto='pickle', allow_pickle=True)
result = 1
