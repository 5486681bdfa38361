# The two commands of the README: `make run` and `make test`. Everything else is optional.
BIN ?= bin/claude-ide-bridge
GO  ?= go

.PHONY: run build test vet bench fuzz nova clean

run: build
	$(BIN) serve

build:
	CGO_ENABLED=0 $(GO) build -trimpath -o $(BIN) ./cmd/claude-ide-bridge

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
	rm -rf bin

-include mk/fuzz.mk
