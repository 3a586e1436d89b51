"""Sites to run tasks on, their tasks and judges, and the harness.

A site is a base URL plus a tool cache directory; :mod:`agentjit.bench.apps`
names *profiles* of that (a site the suite can start, its cache and its tasks):
the bundled food-delivery site (``agentjit.bench.food``, in the style of the
paper's REAL clones) and any profile another module registers.
:mod:`agentjit.bench.tasks` holds the app-independent task and judge types,
:mod:`agentjit.bench.taskfile` reads user task files (JSONL or TOML), and
:mod:`agentjit.bench.harness` runs a task list on a site URL with a cache.
"""
