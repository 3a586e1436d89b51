"""agentjit: a just-in-time compiler for browser tasks."""
__version__ = "0.1.0"
