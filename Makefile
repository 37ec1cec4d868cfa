# Two commands do all the set-up on a fresh machine (Go and Node.js/npm present):
#   make demo   build, print what hosts deliver of the bundled fixture server and its
#               findings, and write them with the wire's tables to MCPPROBE.demo.md
#   make test   install the pinned npm peer servers, then vet and run every test,
#               the end-to-end ones included (build tag e2e)
#   make test-loaded   the same, while CPU burners keep every core busy
#   make unit   the unit tests only (no tag): no npm, no built binaries
GO      ?= go
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X main.version=$(VERSION)

.PHONY: all build demo test test-loaded unit e2e peers bench fuzz fmt vet cross clean

all: build

# mcpprobe is built as the releases are (scripts/release.sh): without cgo,
# a static binary, which starts without the dynamic loader (0.5-0.9 ms of
# CPU a run on the machine of docs/reference.md's figures).
build:
	@echo "building bin/mcpprobe and the fixture servers (a first build compiles every dependency: a few minutes)"
	CGO_ENABLED=0 $(GO) build -ldflags "$(LDFLAGS)" -o bin/mcpprobe ./cmd/mcpprobe
	$(GO) build -o bin/goodserver ./fixtures/goodserver
	$(GO) build -o bin/rawserver ./fixtures/rawserver

# budget prints the findings the report lists (the wire's, each host's
# delivery, the lint); the report adds the wire's tables.
demo: build
	./bin/mcpprobe budget ./bin/goodserver
	./bin/mcpprobe report --out MCPPROBE.demo.md ./bin/goodserver
	@echo "wrote MCPPROBE.demo.md: the findings above, with what the server offers"

peers:
	scripts/install-peers.sh

STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2

# Both builds of the tests are checked: with the e2e tag (every test file)
# and without it (the stand-ins the untagged build uses instead).
vet:
	$(GO) vet ./...
	$(GO) vet -tags e2e ./...
	@test -z "$$(gofmt -l .)" || { echo "gofmt needed:"; gofmt -l .; exit 1; }
	$(GO) run $(STATICCHECK) ./...
	$(GO) run $(STATICCHECK) -tags e2e ./...
	@$(GO) mod tidy -diff >/dev/null || { echo "go.mod/go.sum are not tidy: run go mod tidy"; exit 1; }

# -timeout: the e2e package takes about 6 minutes (make test about 9 from a
# clean clone: docs/reference.md#tests) on an idle 2-core machine
# and 10-11 at a load factor near 3, past go test's default 10m; every wait
# inside a test is bounded already, so this is only the last resort.
test: peers vet
	MCPPROBE_REQUIRE_PEERS=1 $(GO) test -tags e2e -count=1 -parallel 4 -timeout 25m ./...

# make test under load: stress-ng (or shell loops) on every core, started
# before and killed after, also on Ctrl-C (scripts/test-loaded.sh).
test-loaded:
	MAKE="$(MAKE)" scripts/test-loaded.sh GO="$(GO)"

# Every release platform builds, and every package's tests type-check there
# (tests that need a process of that OS run only on it).
PLATFORMS := linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64

cross:
	@for p in $(PLATFORMS); do \
		echo "cross $$p"; \
		GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) build -trimpath -o /dev/null ./cmd/mcpprobe || exit 1; \
		GOOS=$${p%/*} GOARCH=$${p#*/} $(GO) vet -tags e2e ./... || exit 1; \
	done

# Unit tests only: no build tag, so no built binaries and no npm (38 s of
# CPU on the reference machine).
unit:
	$(GO) test ./...

# The end-to-end tests (and cmd/mcpprobe's unit tests beside them): the
# built binary against the fixtures and, once `make peers` has run, the
# npm servers (missing ones skip; make test requires them).
e2e:
	$(GO) test -tags e2e -count=1 -parallel 4 ./cmd/mcpprobe/

bench: build
	scripts/install-peers.sh --bench
	scripts/bench-wire.sh
	scripts/bench-latency.sh
	scripts/bench-scale.sh
	$(GO) test -run '^$$' -bench . -benchtime 20000x ./probe/bench/
	$(GO) test -run '^$$' -bench . -benchtime 5000x ./faults/

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzLineReader -fuzztime 30s ./transport/
	$(GO) test -run '^$$' -fuzz FuzzSSEReader -fuzztime 30s ./transport/
	$(GO) test -run '^$$' -fuzz FuzzSessionDispatch -fuzztime 30s ./probe/
	$(GO) test -run '^$$' -fuzz FuzzValid -fuzztime 30s ./transport/
	$(GO) test -run '^$$' -fuzz FuzzJSON -fuzztime 30s ./probe/canon/
	$(GO) test -run '^$$' -fuzz FuzzMinimalArgs -fuzztime 30s ./probe/args/
	$(GO) test -run '^$$' -fuzz FuzzFromPattern -fuzztime 30s ./probe/args/
	$(GO) test -run '^$$' -fuzz FuzzCheck -fuzztime 30s ./probe/lint/
	$(GO) test -run '^$$' -fuzz FuzzAnalyse -fuzztime 30s ./probe/result/
	$(GO) test -run '^$$' -fuzz FuzzAnalyse -fuzztime 30s ./probe/budget/
	$(GO) test -run '^$$' -fuzz FuzzParse -fuzztime 30s ./probe/wwwauth/
	$(GO) test -run '^$$' -fuzz FuzzSplit -fuzztime 30s ./probe/tokens/
	$(GO) test -run '^$$' -fuzz FuzzOfTools -fuzztime 30s ./probe/tokens/
	$(GO) test -run '^$$' -fuzz FuzzScan -fuzztime 30s ./probe/hidden/

clean:
	rm -rf bin MCPPROBE.demo.md
