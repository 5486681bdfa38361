# Fuzzing (docs/security.md): `make fuzz` runs each target for FUZZTIME; CI runs
# `make fuzz FUZZTIME=5s`. The seed corpora live in each package's testdata/fuzz/<Target>/ and
# also run as ordinary tests in `go test`. Included from the Makefile.
FUZZTIME ?= 60s
FUZZ_TARGETS := FuzzDecode:./internal/jsonrpc FuzzUnmarshalParams:./internal/jsonrpc FuzzRememberedString:./internal/jsonrpc \
	FuzzStdioFraming:./internal/jsonrpc FuzzToolArgs:./internal/ide \
	FuzzEscape:./internal/termtext

fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		name=$${t%%:*}; pkg=$${t#*:}; \
		echo "== $$name in $$pkg for $(FUZZTIME)"; \
		$(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) $$pkg; \
	done
