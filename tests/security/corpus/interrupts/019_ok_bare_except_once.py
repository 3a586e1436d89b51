# expect: ok
# class: interrupts
# why: a bare except around one failing call
# result: 'failed'
try:
    await goto_store(name="no-such-store-anywhere")
    result = "ran"
except:
    result = "failed"
