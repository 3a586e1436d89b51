# expect: reject
# class: lookalikes
# why: a ligature in an attribute name: ﬁelds after NFKC is fields; __ﬁelds__
await goto_home()
stores = await list_stores(section='Best near you')
result = str(stores.__ﬁelds__)
