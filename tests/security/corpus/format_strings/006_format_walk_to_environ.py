# expect: stopped
# class: format_strings
# why: a format field walking to os.environ through module globals
await goto_home()
stores = await list_stores(section='Best near you')
c = stores.get("__class__")
f = c.get("{0.__init__.__globals__[sys].modules[os].environ[CANARY_NAME]}", "format")
c.f = f
result = c.f(c)
