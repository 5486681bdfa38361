package main

import (
	"testing"
	"time"
)

// A sample is timed by the kernel's receive stamp when it is plausible, else by the reader.
func TestReceiptFallsBackToTheReadersTime(t *testing.T) {
	t0 := time.Unix(100, 0)
	at := t0.Add(3 * time.Millisecond)
	cases := []struct {
		name string
		rx   time.Time
		want time.Time
	}{
		{"kernel time", t0.Add(time.Millisecond), t0.Add(time.Millisecond)},
		{"unknown", time.Time{}, at},
		{"older data's stamp", t0.Add(-time.Millisecond), at},
		{"after the read", at.Add(time.Millisecond), at},
	}
	for _, tc := range cases {
		if got := (seen{at: at, rx: tc.rx}).receipt(t0); !got.Equal(tc.want) {
			t.Errorf("%s: receipt %v, want %v", tc.name, got, tc.want)
		}
	}
}
