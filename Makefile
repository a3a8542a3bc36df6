# The two commands of the README: `make translate` and `make test`. Both create the virtual
# environment on first use, so a fresh clone with Python 3.11+, git and make needs nothing else.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
PORT ?= 8080

.PHONY: install translate test check serve bench clean

install: $(STAMP)

# Reinstall when the dependency list changes; the stamp makes repeated runs a no-op.
$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --upgrade pip
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[redis,test,dev]'
	touch $(STAMP)

translate: install
	$(BIN)/pipeline translate

# The shared-cache tests need a real redis-server, the browser tests of `pipeline review` the
# distribution's Chromium and its driver, and the XLIFF schema checks the official XSDs Debian's
# php-symfony-translation ships: installed here when missing and we can (root and apt-get);
# otherwise those tests are skipped and say how to install them.
test: install
	@command -v redis-server >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
		{ apt-get update -qq && apt-get install -y -qq redis-server; } >/dev/null 2>&1 || \
		echo "redis-server not installed (needs root and apt-get): the Redis cache tests will be skipped"; }
	@{ [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; } || { [ "$$(id -u)" = 0 ] && \
		command -v apt-get >/dev/null 2>&1 && { apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver; } >/dev/null 2>&1 || \
		echo "chromium and chromium-driver not installed (needs root and apt-get): the browser tests will be skipped"; }
	@[ -f /usr/share/php/Symfony/Component/Translation/Resources/schemas/xliff-core-2.0.xsd ] || { [ "$$(id -u)" = 0 ] && \
		command -v apt-get >/dev/null 2>&1 && { apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq php-symfony-translation; } >/dev/null 2>&1 || \
		echo "php-symfony-translation not installed (needs root and apt-get): XLIFF schema checks will be skipped"; }
	$(BIN)/python -m pytest -q -n auto --dist loadfile

# Lint, format and types, as CI runs them (.ci/run); `ruff format .` fixes the format.
check: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# Keys come from the environment (PIPELINE_SERVE_AUTH_KEYS etc.), never from the command line.
serve: install
	PIPELINE_SERVE_AUTH_KEYS="$${PIPELINE_SERVE_AUTH_KEYS:-local-dev-key}" \
		$(BIN)/pipeline serve --host 127.0.0.1 --port $(PORT)

# Issue 37's rows, each the whole command over published projects fetched into $PIPELINE_BENCH_CORPUS (else
# the user's cache folder) on first use; each row printed as JSON. ROWS="one_string storm" runs some of them.
bench: install
	$(BIN)/python -m bench.performance $(ROWS)

clean:
	rm -rf $(VENV) build .pipeline-cache .pytest_cache *.egg-info
