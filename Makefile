# aipwatch: every target a newcomer needs. Go builds it; make test (-race) also
# needs cgo and a C compiler (gcc or clang).
GO      ?= go
BIN     ?= bin/aipwatch
PKGS    := ./...

# golangci-lint, pinned: `make lint` (and .ci/run) build this version from the
# module proxy into bin/tools/ the first time (a few minutes on 2 cores), then
# reuse it. GOLANGCI_LINT=/path/to/golangci-lint uses another binary.
GOLANGCI_LINT_VERSION := v2.15.0
GOLANGCI_LINT_DIR     := $(CURDIR)/bin/tools/golangci-lint-$(GOLANGCI_LINT_VERSION)
GOLANGCI_LINT         ?= $(GOLANGCI_LINT_DIR)/golangci-lint

.PHONY: build install man docs test demo bench lint lint-tools golangci-lint-version e2e fuzz fuzz-ci mutate clean

build:
	$(GO) build -o $(BIN) .

# aipwatch into $(go env GOBIN), else $(go env GOPATH)/bin: put that on PATH.
install:
	$(GO) install .

# The man pages, one a command, generated from the command tree into
# bin/man (man -l bin/man/aipwatch.1).
man:
	$(GO) run ./cmd/aipwatch-docs man bin/man

# The generated reference, committed: docs/commands/*.md (each command's
# --help, from the command tree) and docs/keys.md (from keymap.go).
# cmd/aipwatch-docs's test fails when they are stale.
docs:
	$(GO) run ./cmd/aipwatch-docs docs docs

# The test command (README and .ci/run use exactly this).
test:
	$(GO) test -race $(PKGS)

# The live demo on the built-in simulator. The first build downloads and
# compiles the dependencies (a minute or two on a small machine): say so,
# and show the packages as they build, instead of a silent wait.
demo:
	@echo "building aipwatch (the first build takes a minute or two; later ones are quick)…"
	$(GO) build -v -o $(BIN) .
	$(BIN) --demo

# Benchmarks, one table (ratios against references measured in the same run).
bench:
	bash scripts/bench-table.sh

# gofmt, go vet, then golangci-lint with .golangci.yml (errcheck, staticcheck,
# govet, ineffassign, unused, revive, ...); see AGENTS.md.
lint: lint-tools
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)
	$(GOLANGCI_LINT) run $(PKGS)

# Build the pinned golangci-lint into bin/tools/ if it is missing (not when
# GOLANGCI_LINT names another binary).
lint-tools:
	@if [ "$(GOLANGCI_LINT)" = "$(GOLANGCI_LINT_DIR)/golangci-lint" ] && [ ! -x "$(GOLANGCI_LINT)" ]; then \
		echo "installing golangci-lint $(GOLANGCI_LINT_VERSION) into $(GOLANGCI_LINT_DIR) (a few minutes, once)"; \
		GOBIN="$(GOLANGCI_LINT_DIR)" $(GO) install github.com/golangci/golangci-lint/v2/cmd/golangci-lint@$(GOLANGCI_LINT_VERSION); \
	fi

golangci-lint-version:
	@echo $(GOLANGCI_LINT_VERSION)

# The real binary in tmux against the simulator, checked through capture-pane.
e2e:
	bash scripts/e2e.sh

# Every fuzz target for FUZZTIME (default 1m), one after the other; the
# targets are found, not listed (scripts/fuzz.sh: each package's
# `go test -list '^Fuzz'`). Crashers land in testdata/fuzz; keep them.
# fuzz-ci is the short run CI does after make test (15 s each).
FUZZTIME ?= 1m
FUZZMIN  ?= 20x
fuzz:
	GO=$(GO) FUZZTIME=$(FUZZTIME) FUZZMIN=$(FUZZMIN) bash scripts/fuzz.sh

fuzz-ci:
	GO=$(GO) FUZZTIME=15s FUZZMIN=$(FUZZMIN) bash scripts/fuzz.sh

# Mutation testing (gremlins, installed on first use) of model/, safe/ and
# stream/, one package after the other; slow (tens of minutes on 2 cores),
# so not part of test or CI. docs/mutation.md has the last score.
mutate:
	bash scripts/mutate.sh

clean:
	rm -rf bin
