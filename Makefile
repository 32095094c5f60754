# aipwatch: every target a newcomer needs. Go is the only requirement.
GO      ?= go
BIN     ?= bin/aipwatch
PKGS    := ./...

.PHONY: build test demo bench lint e2e fuzz clean

build:
	$(GO) build -o $(BIN) .

# The test command (README and .ci/run use exactly this).
test:
	$(GO) test -race $(PKGS)

# The live demo on the built-in simulator.
demo:
	$(GO) run . --demo

# Benchmarks, one table (ratios against references measured in the same run).
bench:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)

# The real binary in tmux against the simulator, checked through capture-pane.
e2e:
	bash scripts/e2e.sh

# Each fuzz target for FUZZTIME (default 1m); crashers land in testdata/fuzz.
FUZZTIME ?= 1m
fuzz:
	$(GO) test ./safe -run '^$$' -fuzz FuzzText -fuzztime $(FUZZTIME)

clean:
	rm -rf bin
