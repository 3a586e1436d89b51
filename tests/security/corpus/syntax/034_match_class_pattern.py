# expect: reject
# class: syntax
# why: a match class pattern calls isinstance and reads attributes
await goto_home()
stores = await list_stores(section='Best near you')
match stores:
    case object(__class__=k):
        result = str(k)
