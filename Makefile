# aipwatch: every target a newcomer needs. Go builds it; make test (-race) also
# needs cgo and a C compiler (gcc or clang).
GO      ?= go
BIN     ?= bin/aipwatch
PKGS    := ./...

.PHONY: build install test demo bench lint e2e fuzz mutate clean

build:
	$(GO) build -o $(BIN) .

# aipwatch into $(go env GOBIN), else $(go env GOPATH)/bin: put that on PATH.
install:
	$(GO) install .

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

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet $(PKGS)

# The real binary in tmux against the simulator, checked through capture-pane.
e2e:
	bash scripts/e2e.sh

# Each fuzz target for FUZZTIME (default 1m), one after the other; crashers
# land in testdata/fuzz. Minimising every new input for the default 60 s
# stalls these targets (faults/README.md), hence -fuzzminimizetime.
FUZZTIME ?= 1m
FUZZMIN  ?= 20x
fuzz:
	$(GO) test ./stream -run '^$$' -fuzz '^FuzzFrames$$' -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMIN)
	$(GO) test ./stream -run '^$$' -fuzz '^FuzzErrorLine$$' -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMIN)
	$(GO) test ./model -run '^$$' -fuzz '^FuzzIngest$$' -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMIN)
	$(GO) test ./model -run '^$$' -fuzz '^FuzzFastDecode$$' -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMIN)
	$(GO) test ./safe -run '^$$' -fuzz '^FuzzText$$' -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMIN)

# Mutation testing (gremlins, installed on first use) of model/, safe/ and
# stream/, one package after the other; slow (tens of minutes on 2 cores),
# so not part of test or CI. docs/mutation.md has the last score.
mutate:
	bash scripts/mutate.sh

clean:
	rm -rf bin
