# Tests of the Fava bench app (agentjit/bench/fava). The folder is not called
# ``fava``: tests/bench is on sys.path, and a test package named ``fava`` would
# shadow the real Fava.
