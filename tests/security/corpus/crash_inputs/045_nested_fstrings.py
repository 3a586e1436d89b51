# expect: stopped
# class: crash_inputs
# why: f-strings nested as deep as the syntax allows
result = f"{f'{1:>{3}}'}" + f"{'x':{'>'}{3}}"
raise ValueError(result)
