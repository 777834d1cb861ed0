# Two commands set everything up on a fresh Debian machine with the Swift toolchain:
#   make run    builds and starts the trove shell (an in-memory store)
#   make test   runs every test
PREFIX ?= /usr/local
SWIFT  ?= swift
APT_PACKAGES = libedit-dev

.PHONY: run test build release install deps clean bench fuzz

# Installs the C libraries the build links against, when they are missing.
deps:
	@if ! pkg-config --exists libedit 2>/dev/null; then \
		echo "installing $(APT_PACKAGES)"; \
		if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq $(APT_PACKAGES); \
		else sudo apt-get update -qq && sudo apt-get install -y -qq $(APT_PACKAGES); fi; \
	fi

build: deps
	$(SWIFT) build

# The installed shell links the Swift runtime, FoundationEssentials and ICU statically: it runs
# without the toolchain, and a one-shot `trove DB 'count ...'` starts in half the time (no
# shared-library loading and relocation). Without SwiftPM's $ORIGIN run path, the loader finds
# libedit in the system directories at once instead of probing ~40 paths beside the binary
# first (and never loads a library from the directory `trove` is installed in). Its own build
# directory keeps the test builds' flags apart.
#
# Start-up is most of a one-shot command's time, so two more things:
# - Type metadata is made by accessors that pass conformances in, instead of by looking a type
#   up from its mangled name, which checks each generic requirement by scanning every
#   conformance record of the binary (thousands) the first time.
#   It is a frontend option, not a driver one: a toolchain without it fails here, loudly.
# - libstdc++ (the Swift runtime is C++) is linked from its archive when one is installed,
#   so the loader binds none of its symbols at start. `-lstdc++` takes the first directory
#   holding either form, and GCC's holds both: a directory holding only the archive goes
#   first. The toolchain's own clang says where the archive is.
STATIC_BUILD = .build/static
TOOLCHAIN_CLANG := $(or $(wildcard $(dir $(realpath $(shell command -v $(SWIFT) 2>/dev/null)))clang),clang)
STATIC_LIBSTDCXX := $(filter /%,$(wildcard $(shell $(TOOLCHAIN_CLANG) -print-file-name=libstdc++.a 2>/dev/null)))
RELEASE_FLAGS = -Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors \
	$(if $(STATIC_LIBSTDCXX),-Xlinker "-L$(CURDIR)/$(STATIC_BUILD)/libstdc++")
release: deps
ifeq ($(STATIC_LIBSTDCXX),)
	@echo "note: no libstdc++.a found: trove links the shared libstdc++ and starts slower"
else
	@mkdir -p $(STATIC_BUILD)/libstdc++ && ln -sf "$(STATIC_LIBSTDCXX)" $(STATIC_BUILD)/libstdc++/libstdc++.a
endif
	$(SWIFT) build -c release --static-swift-stdlib --disable-local-rpath --product trove --scratch-path $(STATIC_BUILD) $(RELEASE_FLAGS)

run: build
	$(SWIFT) run trove $(ARGS)

test: deps
	$(SWIFT) test

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
