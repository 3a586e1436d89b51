# `make demo` and `make test` each do the whole set-up from nothing, idempotently.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# one process: on two cores, two xdist workers (`make test PYTEST_ARGS="-n 2 --dist loadfile"`) were no faster
# and, in CI, twice as slow, with page loads past tests' time limits
PYTEST_ARGS ?=

.PHONY: demo test lint chromium postgresql venv clean traces help-time

chromium:
	@if [ -z "$$AGENTJIT_CHROMIUM" ] && ! command -v chromium >/dev/null 2>&1; then \
		echo "installing Debian chromium"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; \
	fi

# The PostgreSQL server the effect-log tests start in a temp dir (Debian's package; apt-get only when missing).
postgresql:
	@if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 && ! command -v initdb >/dev/null 2>&1; then \
		echo "installing Debian postgresql"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql; \
	fi

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install -q -e '.[dev,notebooks,openai,gemini,postgres,ray]'
	touch $(STAMP)

venv: $(STAMP)

demo: chromium venv
	$(VENV)/bin/agentjit demo
	$(VENV)/bin/agentjit demo --app roundup
	$(VENV)/bin/agentjit demo --app fava

test: chromium postgresql venv
	$(VENV)/bin/ruff check agentjit toolcache tests
	$(VENV)/bin/mypy
	$(PY) -m pytest -q $(PYTEST_ARGS)

# Re-record the demonstrations in traces/food (real Chromium, latency injection on) and traces/roundup.
traces: chromium venv
	$(VENV)/bin/toolcache record --app food traces/food/scripts/*.json -o traces/food/ --force
	$(VENV)/bin/toolcache record --app roundup traces/roundup/scripts/*.json -o traces/roundup/ --force
	$(VENV)/bin/toolcache record --app django_admin traces/django_admin/scripts/*.json -o traces/django_admin/ --force

lint: venv
	$(VENV)/bin/ruff check agentjit toolcache tests
	$(VENV)/bin/mypy

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache

# How long `agentjit --help` takes (it must stay under 0.3 s: no scipy, numpy or playwright at start)
help-time: venv
	for i in 1 2 3; do /usr/bin/time -f "agentjit --help: %e s" $(VENV)/bin/agentjit --help > /dev/null; done
	for i in 1 2 3; do /usr/bin/time -f "toolcache --help: %e s" $(VENV)/bin/toolcache --help > /dev/null; done
	$(VENV)/bin/python -X importtime -c "import agentjit.cli, toolcache.cli" 2>&1 | sort -t'|' -k2 -n | tail -5
