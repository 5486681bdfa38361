package dist

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func root(t *testing.T) string {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	return filepath.Dir(filepath.Dir(filepath.Dir(file)))
}

// The archives hold one file with the name, mode and time the installers expect, and the same
// input gives the same bytes.
func TestArchives(t *testing.T) {
	data := []byte("#!/bin/sh\necho hi\n")
	a, err := TarGz("claude-ide-bridge", data)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := TarGz("claude-ide-bridge", data)
	if !bytes.Equal(a, b) {
		t.Fatal("two tar.gz of the same file differ")
	}
	gz, err := gzip.NewReader(bytes.NewReader(a))
	if err != nil {
		t.Fatal(err)
	}
	if !gz.ModTime.IsZero() || gz.Name != "" {
		t.Fatalf("gzip header carries time %v / name %q", gz.ModTime, gz.Name)
	}
	tr := tar.NewReader(gz)
	h, err := tr.Next()
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(tr)
	if h.Name != "claude-ide-bridge" || h.Mode != 0o755 || !h.ModTime.Equal(Stamp) || h.Uid != 0 || !bytes.Equal(got, data) {
		t.Fatalf("tar entry %+v", h)
	}
	if _, err := tr.Next(); err != io.EOF {
		t.Fatalf("more than one entry: %v", err)
	}

	z, err := Zip("claude-ide-bridge.exe", data)
	if err != nil {
		t.Fatal(err)
	}
	z2, _ := Zip("claude-ide-bridge.exe", data)
	if !bytes.Equal(z, z2) {
		t.Fatal("two zips of the same file differ")
	}
	zr, err := zip.NewReader(bytes.NewReader(z), int64(len(z)))
	if err != nil {
		t.Fatal(err)
	}
	if len(zr.File) != 1 || zr.File[0].Name != "claude-ide-bridge.exe" || !zr.File[0].Modified.Equal(Stamp) {
		t.Fatalf("zip entries %+v", zr.File)
	}
}

func TestSums(t *testing.T) {
	got := Sums(map[string]string{"b.zip": "22", "a.tar.gz": "11"})
	if got != "11  a.tar.gz\n22  b.zip\n" {
		t.Fatalf("SHA256SUMS:\n%s", got)
	}
	if ArchiveName("1.2.3", Target{"windows", "arm64"}) != "claude-ide-bridge_1.2.3_windows_arm64.zip" ||
		ArchiveName("1.2.3", Target{"linux", "amd64"}) != "claude-ide-bridge_1.2.3_linux_amd64.tar.gz" {
		t.Fatal("archive names changed: install.lua computes the same ones")
	}
}

// Two builds give identical bytes, SHA256SUMS matches the archives, and the binary for this
// machine prints the stamped version. One target (this machine's) keeps it fast.
func TestBuildReproducible(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the bridge twice")
	}
	here := Target{runtime.GOOS, runtime.GOARCH}
	build := func() string {
		out := t.TempDir()
		if err := Build(context.Background(), Options{Version: "9.8.7-test", Root: root(t), Out: out, Targets: []Target{here}, Go: "go"}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	a, b := build(), build()
	name := ArchiveName("9.8.7-test", here)
	for _, f := range []string{name, "SHA256SUMS"} {
		x, err := os.ReadFile(filepath.Join(a, f))
		if err != nil {
			t.Fatal(err)
		}
		y, _ := os.ReadFile(filepath.Join(b, f))
		if !bytes.Equal(x, y) {
			t.Fatalf("%s differs between two builds", f)
		}
	}
	archive, _ := os.ReadFile(filepath.Join(a, name))
	sum := sha256.Sum256(archive)
	sums, _ := os.ReadFile(filepath.Join(a, "SHA256SUMS"))
	if string(sums) != hex.EncodeToString(sum[:])+"  "+name+"\n" {
		t.Fatalf("SHA256SUMS %q", sums)
	}
	if runtime.GOOS == "windows" {
		return
	}
	dir := t.TempDir()
	if out, err := exec.Command("tar", "-xzf", filepath.Join(a, name), "-C", dir).CombinedOutput(); err != nil {
		t.Fatalf("tar: %v %s", err, out)
	}
	out, err := exec.Command(filepath.Join(dir, "claude-ide-bridge"), "version").Output()
	if err != nil || strings.TrimSpace(string(out)) != "claude-ide-bridge 9.8.7-test" {
		t.Fatalf("version: %q, %v", out, err)
	}
}
