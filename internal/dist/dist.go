// Package dist builds the release archives of claude-ide-bridge: one per OS and architecture,
// each holding the static binary (CGO_ENABLED=0, -trimpath, version stamped), plus SHA256SUMS.
// Two builds of the same source give the same bytes: the archives list their one file with a
// fixed time, owner and mode, gzip writes no time or name, and the Go build drops its build ID
// and VCS stamp. The Neovim plugin's :ClaudeCodeInstall downloads these (install.lua).
package dist

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Target is one GOOS/GOARCH pair.
type Target struct{ OS, Arch string }

// Targets are the platforms released: linux, darwin and windows on amd64 and arm64.
var Targets = []Target{
	{"darwin", "amd64"}, {"darwin", "arm64"},
	{"linux", "amd64"}, {"linux", "arm64"},
	{"windows", "amd64"}, {"windows", "arm64"},
}

// Stamp is the fixed modification time of every file in an archive (SOURCE_DATE_EPOCH style).
var Stamp = time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)

// Package is the import path of the command that is released.
const Package = "./cmd/claude-ide-bridge"

// ArchiveName is the file name of t's archive for version: claude-ide-bridge_<v>_<os>_<arch>
// .tar.gz, or .zip for windows. The Neovim plugin computes the same name.
func ArchiveName(version string, t Target) string {
	ext := ".tar.gz"
	if t.OS == "windows" {
		ext = ".zip"
	}
	return fmt.Sprintf("claude-ide-bridge_%s_%s_%s%s", version, t.OS, t.Arch, ext)
}

// Options for Build.
type Options struct {
	Version string   // stamped into main.version; required
	Root    string   // the module's root (where go.mod is)
	Out     string   // directory for the archives and SHA256SUMS; created
	Targets []Target // nil: Targets
	Go      string   // the go command; "" is "go"
}

// Build cross-compiles every target, writes its archive into o.Out and then SHA256SUMS
// (sorted by name, "<hex>  <name>" lines as sha256sum prints them). It stops at the first
// error; files already written stay.
func Build(ctx context.Context, o Options) error {
	if o.Version == "" {
		return fmt.Errorf("dist: no version")
	}
	if o.Targets == nil {
		o.Targets = Targets
	}
	if o.Go == "" {
		o.Go = "go"
	}
	if err := os.MkdirAll(o.Out, 0o755); err != nil {
		return err
	}
	tmp, err := os.MkdirTemp("", "dist-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	sums := map[string]string{}
	for _, t := range o.Targets {
		exe := "claude-ide-bridge"
		if t.OS == "windows" {
			exe += ".exe"
		}
		bin := filepath.Join(tmp, t.OS+"_"+t.Arch, exe)
		cmd := exec.CommandContext(ctx, o.Go, "build", "-trimpath", "-buildvcs=false",
			"-ldflags", "-s -w -buildid= -X main.version="+o.Version, "-o", bin, Package)
		cmd.Dir = o.Root
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+t.OS, "GOARCH="+t.Arch, "GOFLAGS=")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("dist: go build %s/%s: %v\n%s", t.OS, t.Arch, err, out)
		}
		data, err := os.ReadFile(bin)
		if err != nil {
			return err
		}
		var archive []byte
		if t.OS == "windows" {
			archive, err = Zip(exe, data)
		} else {
			archive, err = TarGz(exe, data)
		}
		if err != nil {
			return err
		}
		name := ArchiveName(o.Version, t)
		if err := os.WriteFile(filepath.Join(o.Out, name), archive, 0o644); err != nil {
			return err
		}
		sum := sha256.Sum256(archive)
		sums[name] = hex.EncodeToString(sum[:])
	}
	return os.WriteFile(filepath.Join(o.Out, "SHA256SUMS"), []byte(Sums(sums)), 0o644)
}

// Sums formats name -> hex digest as SHA256SUMS, sorted by name.
func Sums(sums map[string]string) string {
	names := make([]string, 0, len(sums))
	for n := range sums {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "%s  %s\n", sums[n], n)
	}
	return b.String()
}

// TarGz is a gzipped tar holding one executable file, with fixed time, owner and mode, and a
// gzip header without time or name.
func TarGz(name string, data []byte) ([]byte, error) {
	var buf bytes.Buffer
	gz, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	tw := tar.NewWriter(gz)
	hdr := &tar.Header{
		Typeflag: tar.TypeReg, Name: name, Mode: 0o755, Size: int64(len(data)),
		ModTime: Stamp, Uname: "root", Gname: "root", Format: tar.FormatPAX,
	}
	if err := tw.WriteHeader(hdr); err != nil {
		return nil, err
	}
	if _, err := tw.Write(data); err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := gz.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// Zip is a zip holding one executable file with a fixed time.
func Zip(name string, data []byte) ([]byte, error) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	hdr := &zip.FileHeader{Name: name, Method: zip.Deflate, Modified: Stamp}
	hdr.SetMode(0o755)
	w, err := zw.CreateHeader(hdr)
	if err != nil {
		return nil, err
	}
	if _, err := io.Copy(w, bytes.NewReader(data)); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
