"""Local benchmark apps (in the style of the paper's REAL clones), their tasks and judges.

Each app lives in its own subpackage (``agentjit.bench.food``) with a server,
seeded data, a hand-written tool cache, tasks and reference plans;
:mod:`agentjit.bench.tasks` holds the app-independent task and judge types.
"""
