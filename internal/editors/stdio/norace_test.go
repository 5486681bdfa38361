//go:build !race

package stdio_test

const raceEnabled = false
