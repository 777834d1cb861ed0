# Two commands set everything up on a fresh Debian machine with the Swift toolchain:
#   make run    builds and starts the trove shell on a demo store (ARGS=... runs `trove ARGS`)
#   make test   runs every test
PREFIX ?= /usr/local
SWIFT  ?= swift
APT_PACKAGES = libedit-dev postgresql

.PHONY: run test build release install deps clean bench fuzz pg

# Installs the C libraries the build links against, and the PostgreSQL server the tests start,
# when they are missing.
deps:
	@if ! pkg-config --exists libedit 2>/dev/null || ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then \
		echo "installing $(APT_PACKAGES)"; \
		if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq $(APT_PACKAGES); \
		else sudo apt-get update -qq && sudo apt-get install -y -qq $(APT_PACKAGES); fi; \
	fi

build: deps
	$(SWIFT) build

# The installed shell: the Swift runtime, FoundationEssentials, ICU and the C libraries linked
# statically, with a link shaped for start-up (one-shot commands are mostly start-up). The
# script says what each flag saves and falls back, with a note, where a machine lacks a piece.
STATIC_BUILD = .build/static
release: deps
	Scripts/build-release $(STATIC_BUILD) $(SWIFT)

# The demo store `make run` opens: Schemas/People.json with Schemas/People-sample.jsonl
# imported, built on first run (and again when either changes) under the ignored .build/.
DEMO_STORE = .build/demo/people.trove
$(DEMO_STORE): Schemas/People.json Schemas/People-sample.jsonl | build
	@mkdir -p $(@D)
	@rm -f $@ $@-lock $@-log
	@"$$($(SWIFT) build --show-bin-path)/trove" $@ --schema Schemas/People.json \
		-c 'import Person Schemas/People-sample.jsonl' >/dev/null || { rm -f $@ $@-lock $@-log; exit 1; }
	@echo "demo store $@: Person and Dog from Schemas/People.json, 10 people"

ifeq ($(strip $(ARGS)),)
run: build $(DEMO_STORE)
	$(SWIFT) run trove $(DEMO_STORE)
else
run: build
	$(SWIFT) run trove $(ARGS)
endif

# The tests run against a throwaway PostgreSQL cluster (Scripts/pg-server), stopped and
# deleted whatever the tests' outcome; its URL reaches them in TROVE_TEST_POSTGRES_URL. A
# server already running (`make pg`) is used and left running with what it holds: each test
# works in a PostgreSQL schema of its own.
test: deps
	@eval "$$(Scripts/pg-server env)"; \
		if Scripts/pg-server status; then started=; else Scripts/pg-server start >/dev/null || exit 1; started=1; fi; \
		$(SWIFT) test; status=$$?; if [ -n "$$started" ]; then Scripts/pg-server stop; fi; exit $$status

# Starts the same server for development; `Scripts/pg-server stop` stops it.
pg: deps
	@Scripts/pg-server start >/dev/null
	@echo "PostgreSQL is running; to reach it:"
	@Scripts/pg-server env
	@echo 'then: trove "$$TROVE_TEST_POSTGRES_URL"'

install: release
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 -s $(STATIC_BUILD)/release/trove $(DESTDIR)$(PREFIX)/bin/trove
	install -m 644 man/trove.1 $(DESTDIR)$(PREFIX)/share/man/man1/trove.1

bench:
	$(MAKE) -C Benchmarks run

# libFuzzer targets (see Fuzz/README.md); run one with e.g.
#   Fuzz/.build/debug/FuzzStorageOpen -max_total_time=60 /tmp/corpus Fuzz/Corpus/StorageOpen
fuzz: deps
	$(SWIFT) build -c debug -Xswiftc -sanitize=fuzzer,address --package-path Fuzz

clean:
	rm -rf .build
