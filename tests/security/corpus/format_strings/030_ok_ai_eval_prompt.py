# expect: ok
# class: format_strings
# why: ai_eval with a plain named field (the bench's model echoes the question)
# result: 'Pick tea'
result = await ai_eval("Pick {x}", x="tea")
