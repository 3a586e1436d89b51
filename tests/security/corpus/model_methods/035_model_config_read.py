# expect: stopped
# class: model_methods
# why: model_config is the class's pydantic config, not data
await goto_home()
stores = await list_stores(section='Best near you')
cfg = stores.get("model_config")
cfg["frozen"] = False
result = str(cfg)
