"""The bench: local web apps with their tools, tasks, judges and reference plans, and the benchmarks.

The bundled apps (the food-delivery site ``agentjit.bench.food``, in the style
of the paper's REAL clones; Fava, Roundup, Django's admin and Trac) register
their profiles through the ``agentjit.apps`` entry points
(:mod:`agentjit.bench.apps`). What is not specific to the bench lives in the
core: the app registry, tasks and judges, task files and running a task list
are :mod:`agentjit.tasks`; nothing outside this package imports it.
"""
