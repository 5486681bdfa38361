# Fuzzing (docs/security.md). The seed corpora live in each package's testdata/fuzz/<Target>/ and
# also run as ordinary tests in `go test`. Included from the Makefile.
#
#   make fuzz                 each target for its count of executions below (about 5 s each
#                             here): what CI runs
#   make fuzz FUZZTIME=60s    each target for a duration (or FUZZTIME=Nx, a count for all)
#
# CI counts executions instead of timing them: Go 1.26's fuzzing coordinator can fail a
# -fuzztime duration at its deadline with "context deadline exceeded" and no failing input
# (go.dev/issue/75804, fixed in Go 1.27; seen here on FuzzToolArgs once in ~30 runs of 8 s). A
# count has no deadline to race.
FUZZTIME ?=
FUZZ_TARGETS := FuzzDecode:./internal/jsonrpc:60000x FuzzUnmarshalParams:./internal/jsonrpc:60000x \
	FuzzRememberedString:./internal/jsonrpc:2500x FuzzStdioFraming:./internal/jsonrpc:60000x \
	FuzzToolArgs:./internal/ide:60000x FuzzEscape:./internal/termtext:60000x

fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do \
		name=$${t%%:*}; rest=$${t#*:}; pkg=$${rest%%:*}; budget=$${FUZZTIME:-$${rest#*:}}; \
		echo "== $$name in $$pkg for $$budget"; \
		$(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $$budget $$pkg; \
	done
