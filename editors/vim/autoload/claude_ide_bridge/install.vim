vim9script
# :ClaudeCodeInstall: downloads the release archive and SHA256SUMS, checks the
# archive's SHA-256 (a mismatch installs nothing, never a build instead),
# unpacks it, checks that it runs, then moves it into place. No release
# reachable and `go` on $PATH: the bridge is built from this checkout.

import autoload 'claude_ide_bridge.vim' as cib

# The plugin's version; test/vim checks it against lua/claude-ide-bridge/version.lua.
export const VERSION = '0.1.0'
const ROOT = resolve(expand('<sfile>:p'))->fnamemodify(':h:h:h:h:h')

# Runs argv; throws its output when it fails and err is set.
def Run(argv: list<string>, err = ''): string
  var out = trim(system(join(mapnew(argv, (_, a) => shellescape(a)), ' ') .. ' 2>&1'))
  if v:shell_error != 0 && err != '' | throw err .. ': ' .. out | endif
  return v:shell_error == 0 ? out : ''
enddef

def Download(url: string, dest: string)
  if !executable('curl') && !executable('wget') | throw 'unreachable: neither curl nor wget is on $PATH' | endif
  Run(executable('curl') ? ['curl', '-fsSL', '--retry', '2', '-o', dest, url] : ['wget', '-q', '-O', dest, url], 'unreachable: cannot download ' .. url)
enddef

# The digest SHA256SUMS gives for name, or ''.
export def ExpectedSum(sums: list<string>, name: string): string
  var m = matchlist(join(sums, "\n"), '\%(^\|\n\)\(\x\{64}\)\s\+\*\=' .. escape(name, '.\') .. '\r\=\%(\n\|$\)')
  return empty(m) ? '' : tolower(m[1])
enddef

def Release(tmp: string): string
  var os = get({Linux: 'linux', Darwin: 'darwin'}, Run(['uname', '-s']), '')
  var arch = get({x86_64: 'amd64', aarch64: 'arm64', arm64: 'arm64'}, Run(['uname', '-m']), '')
  if os == '' || arch == '' | throw 'unreachable: no release for this system' | endif
  var name = printf('claude-ide-bridge_%s_%s_%s.tar.gz', VERSION, os, arch)
  var url = printf('%s/v%s/', cib.Opt('install_base_url', 'https://github.com/claude-ide-bridge/claude-ide-bridge/releases/download')->substitute('/\+$', '', ''), VERSION)
  Download(url .. 'SHA256SUMS', tmp .. '/SHA256SUMS')
  Download(url .. name, tmp .. '/' .. name)
  var want = ExpectedSum(readfile(tmp .. '/SHA256SUMS'), name)
  if want == '' | throw 'SHA256SUMS has no line for ' .. name | endif
  # Vim 9.0's sha256() takes no text with NUL bytes.
  var got = matchstr(tolower(executable('sha256sum') ? Run(['sha256sum', tmp .. '/' .. name]) : Run(['shasum', '-a', '256', tmp .. '/' .. name])), '\<\x\{64}\>')
  if got != want
    throw printf('checksum mismatch for %s: SHA256SUMS says %s, the download is %s; nothing installed', name, want, got == '' ? 'unknown' : got)
  endif
  mkdir(tmp .. '/unpack', 'p')
  Run(['tar', '-xf', tmp .. '/' .. name, '-C', tmp .. '/unpack'], 'cannot unpack ' .. name)
  var bin = tmp .. '/unpack/claude-ide-bridge'
  setfperm(bin, 'rwxr-xr-x')
  if Run([bin, 'version']) !~ 'claude-ide-bridge' | throw 'the downloaded bridge does not run' | endif
  return bin
enddef

def Build(tmp: string): string
  if !filereadable(ROOT .. '/go.mod') | throw 'no Go sources in ' .. ROOT | endif
  Run(['sh', '-c', 'cd "$1" && CGO_ENABLED=0 go build -trimpath -ldflags "-X main.version=$2" -o "$3" ./cmd/claude-ide-bridge',
    'sh', ROOT, VERSION, tmp .. '/claude-ide-bridge'], 'go build failed')
  return tmp .. '/claude-ide-bridge'
enddef

export def Install(): string
  var dest = cib.InstallPath()
  var tmp = printf('%s/.install-%d-%d', fnamemodify(dest, ':h'), getpid(), localtime())
  mkdir(tmp, 'p')
  cib.Notify('installing the bridge ' .. VERSION .. '...')
  var err = ''
  try
    var bin = ''
    try
      bin = Release(tmp)
    catch /^unreachable: /
      if !executable('go') | throw substitute(v:exception, '^unreachable: ', '', '') | endif
      bin = Build(tmp)
      cib.Notify('no release reachable (' .. substitute(v:exception, '^unreachable: ', '', '') .. '); built from source with Go')
    endtry
    setfperm(bin, 'rwxr-xr-x')
    delete(dest)
    if rename(bin, dest) != 0 | throw 'cannot move the binary to ' .. dest | endif
  catch
    err = v:exception
  finally
    delete(tmp, 'rf')
  endtry
  cib.Notify(err == '' ? 'installed ' .. dest : 'install failed: ' .. err, err == '' ? 'info' : 'error')
  return err == '' ? dest : ''
enddef
