# expect: stopped
# class: unicode_escapes
# why: octal escapes spelling __dict__
await goto_home()
stores = await list_stores(section='Best near you')
result = str(stores.get("\137\137dict\137\137"))
