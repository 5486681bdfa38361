# The two commands of the README: `make run` and `make test`. Everything else is optional.
BIN ?= bin/claude-ide-bridge
GO  ?= go

.PHONY: run build test vet bench fuzz nova clean dist cross

# The version of a release is the Neovim plugin's (lua/claude-ide-bridge/version.lua).
VERSION ?= $(shell sed -n 's/^return "\(.*\)"$$/\1/p' lua/claude-ide-bridge/version.lua)

run: build
	$(BIN) serve

build:
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "-X main.version=$(VERSION)" -o $(BIN) ./cmd/claude-ide-bridge

# Release archives for linux, darwin, windows x amd64, arm64 and SHA256SUMS in dist/; two runs
# give identical bytes (internal/dist).
dist:
	rm -rf dist
	$(GO) run ./internal/dist/cmd/mkdist -version $(VERSION) -out dist

# Every package builds, vets and compiles its tests for linux, darwin and windows.
cross:
	scripts/cross-check --all

# Installs what the tests need when missing (Neovim, the pinned Claude Code CLI, npm packages),
# then runs every suite. .ci/run calls exactly this.
test:
	scripts/test

vet:
	$(GO) vet ./...

bench:
	bench/run

nova:
	editors/nova/build.sh

clean:
	rm -rf bin dist

-include mk/fuzz.mk
