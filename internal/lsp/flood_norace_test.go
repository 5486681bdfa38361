//go:build !race

package lsp_test

// floodFiles is TestDiagnosticsFloodBounded's count: the 300,000 files of issue 25.
const floodFiles = "300000"
