//go:build race

package lsp_test

// floodFiles is TestDiagnosticsFloodBounded's count: under -race each publication costs ~0.2 ms.
const floodFiles = "30000"
